package dev.kgpu.plugin.dra.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The opaque parameters NVIDIA's DRA driver takes in a claim's {@code config} ({@code resource.nvidia.com/v1beta1}
 * {@code GpuConfig}, {@code MigDeviceConfig}), decoded, checked and matched to the claim's devices as NVIDIA's driver
 * does (v0.4.0 {@code device_state.go}, {@code api/.../v1beta1}), with NVIDIA's error texts:
 * <ul>
 *   <li>entries of another driver are skipped; a source other than {@code FromClass}/{@code FromClaim} is
 *       {@code invalid config source: ...}; an entry without opaque parameters is
 *       {@code only opaque parameters are supported by this driver};</li>
 *   <li>decoding is strict: an unknown field, a wrong {@code apiVersion} or an unknown kind is
 *       {@code error decoding config parameters: ...}; {@code VfioDeviceConfig} and the {@code ComputeDomain*} kinds
 *       are kinds kgpu does not support;</li>
 *   <li>class configs come before claim configs, a later one wins; a config naming a result's request (or, as the
 *       API says, its main request of {@code main/sub}) applies to that result and must fit its type
 *       ({@code cannot apply GpuConfig to device "gpu-0-mig-..." of type "mig" (request: ...)}); otherwise the last
 *       config without requests of the device's type;</li>
 *   <li>validation: {@code unknown GPU sharing strategy: ..., supported GPU sharing strategies: TimeSlicing, MPS},
 *       {@code unknown time-slice interval: ..., supported time-slice intervals: Default, Short, Medium, Long},
 *       {@code cannot use MpsConfig with the 'TimeSlicing' strategy}, {@code cannot use TimeSlicingConfig with the 'MPS'
 *       strategy}, active thread percentage from 0 to 100 (kgpu: and not 0); wrapped
 *       {@code error validating GPU config: ...}; {@code mpsConfig}'s memory limits must be Kubernetes quantities
 *       ({@link MpsConfig}; their device keys are matched to the claim's devices when its daemon starts).</li>
 * </ul>
 * Pure: no I/O. Whether kgpu can apply what is asked is the preparer's decision.
 */
public final class OpaqueConfigs {

    public static final String API_VERSION = "resource.nvidia.com/v1beta1";
    public static final String GPU_CONFIG = "GpuConfig";
    public static final String MIG_DEVICE_CONFIG = "MigDeviceConfig";
    static final List<String> STRATEGIES = List.of("TimeSlicing", "MPS");
    static final List<String> INTERVALS = List.of("Default", "Short", "Medium", "Long");
    private static final ObjectMapper JSON = new ObjectMapper();

    private OpaqueConfigs() {
    }

    /** A claim's config that cannot be used, in NVIDIA's words. */
    public static final class ConfigException extends Exception {
        public ConfigException(String message) {
            super(message);
        }
    }

    /** One device of the claim to configure: its request ({@code main} or {@code main/sub}), name and type. */
    public record Target(String request, String device, String type) {
    }

    private record Decoded(int order, List<String> requests, String kind, DeviceSharing sharing) {
    }

    /**
     * The sharing each of {@code targets} gets (by device name) from {@code configs}.
     *
     * @param driver this driver's name ({@code gpu.nvidia.com}): other drivers' entries are theirs
     * @throws ConfigException the first problem, in one line
     */
    public static Map<String, DeviceSharing> resolve(String driver, List<ClaimConfig> configs, List<Target> targets)
            throws ConfigException {
        List<Decoded> decoded = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            ClaimConfig config = configs.get(i);
            if (!config.source().equals(ClaimConfig.FROM_CLASS) && !config.source().equals(ClaimConfig.FROM_CLAIM)) {
                throw new ConfigException("error getting opaque device configs: invalid config source: " + config.source());
            }
            if (config.driver().isEmpty()) {
                throw new ConfigException("error getting opaque device configs: only opaque parameters are supported by this driver");
            }
            if (!config.driver().get().equals(driver)) {
                continue;
            }
            int order = (config.source().equals(ClaimConfig.FROM_CLASS) ? 0 : 1) * configs.size() + i;
            decoded.add(decode(order, config));
        }
        decoded.sort(Comparator.comparingInt(Decoded::order));
        Map<String, DeviceSharing> result = new LinkedHashMap<>();
        for (Target target : targets) {
            result.put(target.device(), forTarget(decoded, target));
        }
        return result;
    }

    private static DeviceSharing forTarget(List<Decoded> decoded, Target target) throws ConfigException {
        String main = target.request().contains("/") ? target.request().substring(0, target.request().indexOf('/')) : target.request();
        String wanted = target.type().equals("mig") ? MIG_DEVICE_CONFIG : GPU_CONFIG;
        for (int i = decoded.size() - 1; i >= 0; i--) {
            Decoded config = decoded.get(i);
            if (config.requests().contains(target.request()) || config.requests().contains(main)) {
                if (!config.kind().equals(wanted)) {
                    throw new ConfigException("cannot apply " + config.kind() + " to device \"" + target.device()
                            + "\" of type \"" + target.type() + "\" (request: " + target.request() + ")");
                }
                return config.sharing();
            }
        }
        for (int i = decoded.size() - 1; i >= 0; i--) {
            Decoded config = decoded.get(i);
            if (config.requests().isEmpty() && config.kind().equals(wanted)) {
                return config.sharing();
            }
        }
        return DeviceSharing.DEFAULT;
    }

    private static Decoded decode(int order, ClaimConfig config) throws ConfigException {
        String raw = config.parameters().orElse("");
        JsonNode node;
        try {
            node = JSON.readTree(raw);
        } catch (JsonProcessingException e) {
            throw decoding("not JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw decoding("the parameters are not an object");
        }
        String apiVersion = node.path("apiVersion").asText("");
        String kind = node.path("kind").asText("");
        if (!apiVersion.equals(API_VERSION)) {
            throw decoding("apiVersion '" + apiVersion + "' is not " + API_VERSION);
        }
        if (!kind.equals(GPU_CONFIG) && !kind.equals(MIG_DEVICE_CONFIG)) {
            throw decoding(Set.of("VfioDeviceConfig", "ComputeDomainChannelConfig", "ComputeDomainDaemonConfig").contains(kind)
                    ? "kind " + kind + " is not supported by kgpu" : "unknown kind '" + kind + "'");
        }
        only(node, "", Set.of("apiVersion", "kind", "sharing"));
        JsonNode sharing = node.get("sharing");
        if (sharing == null || sharing.isNull()) {
            return new Decoded(order, config.requests(), kind, new DeviceSharing(Optional.of(kind), Optional.empty(), Optional.empty()));
        }
        boolean gpu = kind.equals(GPU_CONFIG);
        only(sharing, "sharing.", gpu ? Set.of("strategy", "timeSlicingConfig", "mpsConfig") : Set.of("strategy", "mpsConfig"));
        String strategy = sharing.path("strategy").asText("");
        JsonNode timeSlicing = sharing.get("timeSlicingConfig");
        JsonNode mps = sharing.get("mpsConfig");
        if (timeSlicing != null && !timeSlicing.isNull()) {
            only(timeSlicing, "sharing.timeSlicingConfig.", Set.of("interval"));
        }
        if (mps != null && !mps.isNull()) {
            only(mps, "sharing.mpsConfig.", Set.of("defaultActiveThreadPercentage", "defaultPinnedDeviceMemoryLimit",
                    "defaultPerDevicePinnedMemoryLimit"));
        }
        if (!STRATEGIES.contains(strategy)) {
            throw validating("unknown GPU sharing strategy: " + strategy
                    + ", supported GPU sharing strategies: TimeSlicing, MPS");
        }
        Optional<String> interval = Optional.empty();
        Optional<MpsConfig> mpsConfig = Optional.empty();
        if (strategy.equals("TimeSlicing")) {
            if (mps != null && !mps.isNull()) {
                throw validating("cannot use MpsConfig with the 'TimeSlicing' strategy");
            }
            if (gpu) {
                String value = timeSlicing == null || timeSlicing.isNull() || timeSlicing.get("interval") == null
                        ? "Default" : timeSlicing.get("interval").asText("");
                if (!INTERVALS.contains(value)) {
                    throw validating("unknown time-slice interval: " + value
                            + ", supported time-slice intervals: Default, Short, Medium, Long");
                }
                interval = Optional.of(value);
            }
        } else {
            if (timeSlicing != null && !timeSlicing.isNull()) {
                throw validating("cannot use TimeSlicingConfig with the 'MPS' strategy");
            }
            mpsConfig = Optional.of(mpsConfig(mps));
        }
        return new Decoded(order, config.requests(), kind, new DeviceSharing(Optional.of(kind), Optional.of(strategy), interval,
                mpsConfig));
    }

    /** {@code sharing.mpsConfig}, checked: the percentage as NVIDIA validates it (and not 0), the limits quantities. */
    private static MpsConfig mpsConfig(JsonNode mps) throws ConfigException {
        if (mps == null || mps.isNull()) {
            return MpsConfig.NONE;
        }
        OptionalInt threads = OptionalInt.empty();
        JsonNode percentage = mps.get("defaultActiveThreadPercentage");
        if (percentage != null && !percentage.isNull()) {
            if (!percentage.isIntegralNumber() || !percentage.canConvertToInt()) {
                throw decoding(MpsConfig.PERCENTAGE + " is not an integer: " + percentage);
            }
            if (percentage.asInt() < 0) {
                throw validating("active thread percentage must not be negative");
            }
            if (percentage.asInt() > 100) {
                throw validating("active thread percentage must not be greater than 100");
            }
            if (percentage.asInt() == 0) {
                throw validating(MpsConfig.PERCENTAGE + " was '0' but it must be from 1 to 100: kgpu starts no MPS"
                        + " daemon whose clients get no threads");
            }
            threads = OptionalInt.of(percentage.asInt());
        }
        Optional<Long> pinned = Optional.empty();
        JsonNode limit = mps.get("defaultPinnedDeviceMemoryLimit");
        if (limit != null && !limit.isNull()) {
            pinned = Optional.of(quantity(MpsConfig.PINNED, limit));
        }
        Map<String, Long> perDevice = new LinkedHashMap<>();
        JsonNode limits = mps.get("defaultPerDevicePinnedMemoryLimit");
        if (limits != null && !limits.isNull()) {
            if (!limits.isObject()) {
                throw decoding(MpsConfig.PER_DEVICE + " is not an object: " + limits);
            }
            for (Iterator<Map.Entry<String, JsonNode>> entries = limits.fields(); entries.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = entries.next();
                perDevice.put(entry.getKey(), quantity(MpsConfig.PER_DEVICE + "[" + entry.getKey() + "]", entry.getValue()));
            }
        }
        return new MpsConfig(threads, pinned, perDevice);
    }

    /** A quantity field in bytes; one that does not parse, or is negative, names the field and the value. */
    private static long quantity(String field, JsonNode value) throws ConfigException {
        Optional<Long> bytes = value.isTextual() ? MpsConfig.bytes(value.asText())
                : value.isIntegralNumber() && value.canConvertToLong() ? Optional.of(value.asLong()) : Optional.empty();
        if (bytes.isEmpty()) {
            throw decoding(field + " was " + value + " but it must be a quantity such as 10Gi or 512Mi");
        }
        if (bytes.get() < 0) {
            throw validating(field + " was " + value + " but it must not be negative");
        }
        return bytes.get();
    }

    /** Strict decoding: a field {@code node} may not have. */
    private static void only(JsonNode node, String prefix, Set<String> allowed) throws ConfigException {
        if (!node.isObject()) {
            throw decoding(prefix.isEmpty() ? "the parameters are not an object" : prefix.substring(0, prefix.length() - 1)
                    + " is not an object");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw decoding("unknown field \"" + prefix + name + "\"");
            }
        }
    }

    private static ConfigException decoding(String why) {
        return new ConfigException("error getting opaque device configs: error decoding config parameters: " + why);
    }

    private static ConfigException validating(String why) {
        return new ConfigException("error validating GPU config: " + why);
    }
}
