package dev.kgpu.config.v1;

import dev.kgpu.config.GoJson;

import java.util.List;
import java.util.Map;

/**
 * The effective configuration as indented JSON, with NVIDIA's field names and order, for the
 * "Running with config:" line both agents log at start-up and after each reload. The JSON is itself a
 * valid config file: {@code ConfigFile.parse(ConfigJson.toJson(config, ALL), ...)} gives the same config.
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigJson {

    /** Which of the binary-specific blocks to print; NVIDIA's plugin drops {@code flags.gfd} and GFD has no plugin flags. */
    public enum Blocks {
        /** Both {@code flags.plugin} and {@code flags.gfd}. */
        ALL,
        /** {@code flags.plugin}, as the device plugin logs it. */
        DEVICE_PLUGIN,
        /** {@code flags.gfd}, as feature discovery logs it. */
        FEATURE_DISCOVERY
    }

    private ConfigJson() {
    }

    /** {@code config} as JSON indented by two spaces, as Go's {@code json.MarshalIndent(config, "", "  ")}. */
    public static String toJson(Config config, Blocks blocks) {
        StringBuilder out = new StringBuilder();
        write(out, toTree(config, blocks), "");
        return out.toString();
    }

    /**
     * An agent's effective settings (a map of strings, booleans, numbers, lists and maps, in its order) as
     * the same indented JSON, for the agents without a config file.
     */
    public static String toJson(Map<String, ?> settings) {
        StringBuilder out = new StringBuilder();
        write(out, settings, "");
        return out.toString();
    }

    private static Map<String, Object> toTree(Config config, Blocks blocks) {
        Flags flags = config.flags();
        Map<String, Object> flagTree = new Ordered()
                .with("migStrategy", flags.migStrategy().wireName())
                .with("failOnInitError", flags.failOnInitError())
                .withIf(flags.mpsRoot().isPresent(), "mpsRoot", flags.mpsRoot().orElse(""))
                .with("nvidiaDriverRoot", flags.nvidiaDriverRoot())
                .with("nvidiaDevRoot", flags.nvidiaDevRoot())
                .with("gdrcopyEnabled", flags.gdrcopyEnabled())
                .with("gdsEnabled", flags.gdsEnabled())
                .with("mofedEnabled", flags.mofedEnabled())
                .with("useNodeFeatureAPI", flags.useNodeFeatureAPI())
                .with("deviceDiscoveryStrategy", flags.deviceDiscoveryStrategy().wireName());
        if (blocks != Blocks.FEATURE_DISCOVERY) {
            PluginFlags plugin = flags.plugin();
            flagTree.put("plugin", new Ordered()
                    .with("passDeviceSpecs", plugin.passDeviceSpecs())
                    .with("deviceListStrategy", plugin.deviceListStrategy().stream().map(WireValue::wireName).toList())
                    .with("deviceIDStrategy", plugin.deviceIDStrategy().wireName())
                    .with("cdiAnnotationPrefix", plugin.cdiAnnotationPrefix())
                    .with("nvidiaCTKPath", plugin.nvidiaCTKPath())
                    .with("containerDriverRoot", plugin.containerDriverRoot())
                    .with("sharedDevicesAllocationPolicy", plugin.sharedDevicesAllocationPolicy().wireName()));
        }
        if (blocks != Blocks.DEVICE_PLUGIN) {
            GfdFlags gfd = flags.gfd();
            flagTree.put("gfd", new Ordered()
                    .with("oneshot", gfd.oneshot())
                    .with("noTimestamp", gfd.noTimestamp())
                    .with("sleepInterval", gfd.sleepInterval().goString())
                    .with("outputFile", gfd.outputFile())
                    .with("machineTypeFile", gfd.machineTypeFile()));
        }
        Map<String, Object> sharing = new Ordered();
        config.sharing().timeSlicing().ifPresent(t -> sharing.put("timeSlicing", replicated(t)));
        config.sharing().mps().ifPresent(m -> sharing.put("mps", replicated(m)));
        return new Ordered()
                .with("version", config.version())
                .with("flags", flagTree)
                .with("resources", new Ordered()
                        .with("gpus", resources(config.resources().gpus()))
                        .withIf(!config.resources().mig().isEmpty(), "mig", resources(config.resources().mig())))
                .with("sharing", sharing)
                .with("imex", new Ordered()
                        .with("channelIDs", config.imex().channelIDs())
                        .with("required", config.imex().required()));
    }

    private static List<Object> resources(List<Resource> resources) {
        return resources.stream()
                .<Object>map(r -> new Ordered().with("pattern", r.pattern().glob()).with("name", r.name().value()))
                .toList();
    }

    private static Map<String, Object> replicated(ReplicatedResources replicated) {
        return new Ordered()
                .with("renameByDefault", replicated.renameByDefault())
                .with("failRequestsGreaterThanOne", replicated.failRequestsGreaterThanOne())
                .with("resources", replicated.resources().stream().<Object>map(r -> new Ordered()
                        .with("name", r.name().value())
                        .withIf(r.rename().isPresent(), "rename", r.rename().map(ResourceName::value).orElse(""))
                        .with("devices", devices(r.devices()))
                        .with("replicas", r.replicas())).toList());
    }

    private static Object devices(ReplicatedDevices devices) {
        return switch (devices) {
            case ReplicatedDevices.All all -> "all";
            case ReplicatedDevices.Count count -> count.count();
            case ReplicatedDevices.DeviceList list -> list.devices().stream().map(DeviceRef::text).toList();
        };
    }

    private static void write(StringBuilder out, Object value, String indent) {
        switch (value) {
            case Map<?, ?> map when map.isEmpty() -> out.append("{}");
            case Map<?, ?> map -> {
                String inner = indent + "  ";
                out.append("{\n");
                int i = 0;
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    out.append(inner);
                    GoJson.string(out, entry.getKey().toString());
                    out.append(": ");
                    write(out, entry.getValue(), inner);
                    out.append(++i < map.size() ? ",\n" : "\n");
                }
                out.append(indent).append('}');
            }
            case List<?> list when list.isEmpty() -> out.append("[]");
            case List<?> list -> {
                String inner = indent + "  ";
                out.append("[\n");
                for (int i = 0; i < list.size(); i++) {
                    out.append(inner);
                    write(out, list.get(i), inner);
                    out.append(i + 1 < list.size() ? ",\n" : "\n");
                }
                out.append(indent).append(']');
            }
            case String s -> GoJson.string(out, s);
            case Boolean b -> out.append(b);
            case Integer n -> out.append(n);
            case Long n -> out.append(n);
            default -> throw new IllegalStateException("no JSON form for " + value.getClass());
        }
    }


    /** An insertion-ordered map with a fluent put, so the tree reads like the JSON it becomes. */
    private static final class Ordered extends java.util.LinkedHashMap<String, Object> {
        private static final long serialVersionUID = 1L;

        Ordered with(String key, Object value) {
            put(key, value);
            return this;
        }

        Ordered withIf(boolean condition, String key, Object value) {
            if (condition) {
                put(key, value);
            }
            return this;
        }
    }
}
