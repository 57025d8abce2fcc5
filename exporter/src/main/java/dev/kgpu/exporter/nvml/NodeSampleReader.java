package dev.kgpu.exporter.nvml;

import dev.kgpu.exporter.collector.GpuInstanceSample;
import dev.kgpu.exporter.collector.GpuSample;
import dev.kgpu.exporter.collector.NodeSample;
import dev.kgpu.exporter.collector.Reading;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.nvml.Brand;
import dev.kgpu.nvml.EccCounterType;
import dev.kgpu.nvml.GpmMetrics;
import dev.kgpu.nvml.GpmSampler;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.GpuTelemetry;
import dev.kgpu.nvml.InforomObject;
import dev.kgpu.nvml.MemoryErrorType;
import dev.kgpu.nvml.MemoryInfo;
import dev.kgpu.nvml.MigDevice;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvLinkTraffic;
import dev.kgpu.nvml.NvmlException;
import dev.kgpu.nvml.P2pCapability;
import dev.kgpu.nvml.P2pStatus;
import dev.kgpu.nvml.PageRetirementCause;
import dev.kgpu.nvml.PcieThroughput;
import dev.kgpu.nvml.PerfPolicy;

import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The NVML adapter: reads every GPU (and every GPU instance of a MIG-enabled GPU) into a {@link NodeSample},
 * making only the reads the collectors asked for. One failing read (a GPU that fell off the bus, say) costs
 * that value only: it is reported to {@code errors} and the rest of the sample is kept.
 *
 * <p>Owns one GPM sampler per GPU and per GPU instance with GPM, opened on first use.
 * Not thread-safe: the collection thread owns it.
 */
public final class NodeSampleReader implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(NodeSampleReader.class.getName());
    /** {@code 1c.2g.20gb} is compute-instance profile 1c of GPU-instance profile 2g.20gb. */
    private static final Pattern COMPUTE_PREFIX = Pattern.compile("^[0-9]+c\\.");

    private final Nvml nvml;
    private final Set<Reading> readings;
    private final Consumer<NvmlException> errors;
    private final InstantSource clock;
    private final List<GpuDevice> devices;
    private final Map<String, GpmSampler> samplers = new HashMap<>();
    private final Set<String> noGpm = new HashSet<>();

    public NodeSampleReader(Nvml nvml, Set<Reading> readings, Consumer<NvmlException> errors, InstantSource clock) {
        this.nvml = nvml;
        this.readings = readings.isEmpty() ? EnumSet.noneOf(Reading.class) : EnumSet.copyOf(readings);
        this.errors = errors;
        this.clock = clock;
        this.devices = nvml.devices();
    }

    /** The GPUs this reader reads, in index order. */
    public List<GpuDevice> devices() {
        return devices;
    }

    public NodeSample read() {
        String driver = attempt(nvml::driverVersion).orElse("");
        String nvmlVersion = attempt(nvml::nvmlVersion).orElse("");
        List<GpuSample> gpus = new ArrayList<>(devices.size());
        for (GpuDevice device : devices) {
            gpus.add(read(device));
        }
        return new NodeSample(clock.instant(), driver, nvmlVersion, gpus);
    }

    private GpuSample read(GpuDevice device) {
        Entity gpu = Entity.gpu(device.index(), device.uuid(), device.pci().busId(), device.name());
        Brand brand = device.brand();
        boolean identity = readings.contains(Reading.IDENTITY_STRINGS);
        Optional<String> serial = identity ? attempt(device::serial).flatMap(o -> o) : Optional.empty();
        Optional<String> vbios = identity ? attempt(device::vbiosVersion).flatMap(o -> o) : Optional.empty();
        Optional<String> inforom = identity ? attempt(device::inforomImageVersion).flatMap(o -> o) : Optional.empty();

        Optional<GpuTelemetry> telemetry = readings.contains(Reading.TELEMETRY)
                ? attempt(device::telemetry) : Optional.empty();
        boolean migOn = attempt(device::migMode).flatMap(o -> o).map(m -> m.currentEnabled()).orElse(false);
        List<GpuInstanceSample> instances = migOn ? readInstances(device) : List.of();

        boolean gpmSupported = readings.contains(Reading.GPM) && attempt(device::gpmSupported).orElse(false);
        Optional<GpmMetrics> gpm = Optional.empty();
        if (gpmSupported && instances.isEmpty()) {
            gpm = sample(device.uuid(), () -> Optional.of(device.openGpmSampler()));
        }

        Optional<GpuSample.EccTotals> ecc = Optional.empty();
        if (readings.contains(Reading.ECC)) {
            ecc = Optional.of(new GpuSample.EccTotals(
                    ecc(device, MemoryErrorType.CORRECTED, EccCounterType.VOLATILE),
                    ecc(device, MemoryErrorType.UNCORRECTED, EccCounterType.VOLATILE),
                    ecc(device, MemoryErrorType.CORRECTED, EccCounterType.AGGREGATE),
                    ecc(device, MemoryErrorType.UNCORRECTED, EccCounterType.AGGREGATE)));
        }
        OptionalLong retiredSbe = OptionalLong.empty();
        OptionalLong retiredDbe = OptionalLong.empty();
        Optional<Boolean> retiredPending = Optional.empty();
        if (readings.contains(Reading.RETIRED_PAGES)) {
            retiredSbe = attempt(() -> device.retiredPages(PageRetirementCause.MULTIPLE_SINGLE_BIT_ECC_ERRORS))
                    .orElse(OptionalLong.empty());
            retiredDbe = attempt(() -> device.retiredPages(PageRetirementCause.DOUBLE_BIT_ECC_ERROR))
                    .orElse(OptionalLong.empty());
            retiredPending = attempt(device::retiredPagesPending).flatMap(o -> o);
        }
        Map<PerfPolicy, Long> violations = new EnumMap<>(PerfPolicy.class);
        if (readings.contains(Reading.VIOLATIONS)) {
            for (PerfPolicy policy : PerfPolicy.values()) {
                attempt(() -> device.violationNanos(policy)).ifPresent(v -> {
                    if (v.isPresent()) {
                        violations.put(policy, v.getAsLong());
                    }
                });
            }
        }
        var nvLinkErrors = readings.contains(Reading.NVLINK_ERRORS)
                ? attempt(device::nvLinkErrorTotals).flatMap(o -> o) : Optional.<dev.kgpu.nvml.NvLinkErrorTotals>empty();
        var license = readings.contains(Reading.VGPU_LICENSE)
                ? attempt(device::vgpuLicenseState).flatMap(o -> o) : Optional.<dev.kgpu.nvml.VgpuLicenseState>empty();
        Map<InforomObject, String> inforomVersions = new EnumMap<>(InforomObject.class);
        if (readings.contains(Reading.INFOROM_VERSIONS)) {
            for (InforomObject object : InforomObject.values()) {
                attempt(() -> device.inforomVersion(object)).flatMap(o -> o).ifPresent(v -> inforomVersions.put(object, v));
            }
        }
        Optional<PcieThroughput> pcie = readings.contains(Reading.PCIE_THROUGHPUT)
                ? attempt(device::pcieThroughput).flatMap(o -> o) : Optional.empty();
        List<NvLinkTraffic> traffic = readings.contains(Reading.NVLINK_TRAFFIC)
                ? attempt(device::nvLinkTraffic).orElse(List.of()) : List.of();
        Map<Integer, P2pStatus> p2p = new HashMap<>();
        if (readings.contains(Reading.P2P_STATUS)) {
            for (GpuDevice peer : devices) {
                if (peer != device) {
                    attempt(() -> device.p2pStatus(peer, P2pCapability.NVLINK)).ifPresent(st -> p2p.put(peer.index(), st));
                }
            }
        }

        return new GpuSample(gpu, brand, serial, vbios, inforom, telemetry, gpmSupported, gpm, ecc, retiredSbe,
                retiredDbe, retiredPending, violations, nvLinkErrors, license, instances, inforomVersions, pcie, traffic,
                p2p);
    }

    private List<GpuInstanceSample> readInstances(GpuDevice device) {
        List<MigDevice> migs = attempt(device::migDevices).orElse(List.of());
        Map<Integer, List<MigDevice>> byInstance = new LinkedHashMap<>();
        for (MigDevice mig : migs) {
            byInstance.computeIfAbsent(mig.gpuInstanceId(), k -> new ArrayList<>()).add(mig);
        }
        List<GpuInstanceSample> instances = new ArrayList<>(byInstance.size());
        byInstance.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(entry -> {
            MigDevice first = entry.getValue().getFirst();
            String profile = COMPUTE_PREFIX.matcher(first.profile().name()).replaceFirst("");
            Optional<MemoryInfo> memory = readings.contains(Reading.TELEMETRY)
                    ? attempt(first::memory) : Optional.empty();
            Optional<GpmMetrics> gpm = Optional.empty();
            if (readings.contains(Reading.GPM)) {
                gpm = sample(device.uuid() + "/gi" + entry.getKey(), first::openGpmSampler);
            }
            instances.add(new GpuInstanceSample(entry.getKey(), profile,
                    entry.getValue().stream().map(MigDevice::uuid).toList(), memory, gpm));
        });
        return instances;
    }

    private Optional<GpmMetrics> sample(String key, Supplier<Optional<GpmSampler>> open) {
        if (noGpm.contains(key)) {
            return Optional.empty();
        }
        GpmSampler sampler = samplers.get(key);
        if (sampler == null) {
            Optional<GpmSampler> opened = attempt(open).flatMap(o -> o);
            if (opened.isEmpty()) {
                noGpm.add(key);
                return Optional.empty();
            }
            sampler = opened.get();
            samplers.put(key, sampler);
        }
        GpmSampler owned = sampler;
        return attempt(owned::sample).flatMap(o -> o);
    }

    private OptionalLong ecc(GpuDevice device, MemoryErrorType type, EccCounterType counter) {
        return attempt(() -> device.eccErrors(type, counter)).orElse(OptionalLong.empty());
    }

    private <T> Optional<T> attempt(Supplier<T> read) {
        try {
            return Optional.ofNullable(read.get());
        } catch (NvmlException e) {
            errors.accept(e);
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        for (GpmSampler sampler : samplers.values()) {
            try {
                sampler.close();
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "closing a GPM sampler failed: {0}", e.getMessage());
            }
        }
        samplers.clear();
    }
}
