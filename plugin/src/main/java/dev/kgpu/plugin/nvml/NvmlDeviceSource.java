package dev.kgpu.plugin.nvml;

import dev.kgpu.nvml.Architecture;
import dev.kgpu.nvml.Brand;
import dev.kgpu.nvml.ComputeCapability;
import dev.kgpu.nvml.ComputeMode;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.HealthEvent;
import dev.kgpu.nvml.HealthMonitor;
import dev.kgpu.nvml.MigDevice;
import dev.kgpu.nvml.MigPlacement;
import dev.kgpu.nvml.MigProfile;
import dev.kgpu.nvml.NvLink;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlException;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.nvml.TopologyLevel;
import dev.kgpu.plugin.devices.ComputeModes;
import dev.kgpu.plugin.devices.DeviceEvents;
import dev.kgpu.plugin.devices.DeviceProbe;
import dev.kgpu.plugin.devices.DeviceSource;
import dev.kgpu.plugin.devices.DeviceSourceException;
import dev.kgpu.plugin.devices.DriverInfo;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.GpuDetails;
import dev.kgpu.plugin.devices.GpuLink;
import dev.kgpu.plugin.devices.MigDetails;
import dev.kgpu.plugin.devices.MigInstance;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PcieProximity;
import dev.kgpu.plugin.devices.PhysicalDevice;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The plugin's devices from NVML (nvml-ffm): GPUs, MIG devices, NUMA nodes, PCIe and NVLink topology;
 * a probe that reads a device's memory; and NVML's health-event monitor.
 *
 * <p>Thread-safety: safe for concurrent use, as {@link Nvml} is.
 */
public final class NvmlDeviceSource implements DeviceSource {

    private static final System.Logger LOG = System.getLogger(NvmlDeviceSource.class.getName());

    private final Nvml nvml;
    private final MigCapabilities capabilities;

    private NvmlDeviceSource(Nvml nvml, MigCapabilities capabilities) {
        this.nvml = nvml;
        this.capabilities = capabilities;
    }

    /** A factory that opens NVML with {@code options} on each start. */
    public static Factory factory(NvmlOptions options, MigCapabilities capabilities) {
        return () -> {
            try {
                return new NvmlDeviceSource(Nvml.open(options), capabilities);
            } catch (NvmlException e) {
                throw new DeviceSourceException("NVML could not start: " + e.getMessage(), e);
            }
        };
    }

    @Override
    public NodeInventory inventory() {
        try {
            List<GpuDevice> devices = nvml.devices();
            List<Gpu> gpus = new ArrayList<>();
            for (GpuDevice device : devices) {
                gpus.add(toGpu(device));
            }
            Map<String, GpuDevice> byUuid = new HashMap<>();
            devices.forEach(d -> byUuid.put(d.uuid(), d));
            Map<String, List<String>> linkEnds = new HashMap<>();
            for (GpuDevice device : devices) {
                linkEnds.put(device.uuid(), device.nvLinks().stream().filter(NvLink::active)
                        .map(NvLink::remoteBusId).flatMap(Optional::stream).map(NvmlDeviceSource::normalise).toList());
            }
            Set<String> gpuBusIds = new LinkedHashSet<>();
            devices.forEach(d -> gpuBusIds.add(normalise(d.pci().busId())));
            DriverInfo driver = new DriverInfo(nvml.driverVersion(), nvml.cudaDriverVersion().toString());
            return new NodeInventory(gpus, NodeInventory.linksOf(gpus, (a, b) -> {
                GpuDevice da = byUuid.get(a.uuid());
                GpuDevice db = byUuid.get(b.uuid());
                return new GpuLink(proximity(da.commonAncestor(db)),
                        nvlinks(linkEnds.get(a.uuid()), linkEnds.get(b.uuid()), normalise(da.pci().busId()),
                                normalise(db.pci().busId()), gpuBusIds));
            }), driver);
        } catch (NvmlException e) {
            throw new DeviceSourceException("NVML could not list the GPUs: " + e.getMessage(), e);
        }
    }

    private Gpu toGpu(GpuDevice device) {
        boolean migEnabled = device.migMode().map(m -> m.currentEnabled()).orElse(false);
        List<MigInstance> migs = new ArrayList<>();
        if (migEnabled) {
            for (MigDevice mig : device.migDevices()) {
                MigProfile profile = mig.profile();
                MigPlacement placement = mig.placement();
                migs.add(new MigInstance(mig.uuid(), device.index(), device.uuid(), device.minorNumber(), mig.index(),
                        mig.gpuInstanceId(), mig.computeInstanceId(), profile.name(), device.numaNode(),
                        capabilities.minors(device.minorNumber(), mig.gpuInstanceId(), mig.computeInstanceId()),
                        new MigDetails(placement.profileId(), placement.start(), placement.size(),
                                profile.memoryMiB() * 1024 * 1024, profile.multiprocessorCount(), profile.copyEngineCount(),
                                profile.decoderCount(), profile.encoderCount(), profile.jpegCount(), profile.ofaCount())));
            }
        }
        return new Gpu(device.index(), device.uuid(), device.name(), device.minorNumber(), device.pci().busId(),
                device.numaNode(), migEnabled, migs, details(device));
    }

    /** Brand, architecture and compute capability in go-nvlib's words, as NVIDIA's DRA driver publishes them. */
    private static GpuDetails details(GpuDevice device) {
        OptionalLong memory;
        try {
            memory = OptionalLong.of(device.memory().totalBytes());
        } catch (NvmlException.NotSupportedHere e) {
            memory = OptionalLong.empty();
        }
        ComputeCapability capability = device.computeCapability();
        return new GpuDetails(brand(device.brand()), architecture(device.architecture()),
                capability.major() + "." + capability.minor(), memory);
    }

    /** go-nvlib's {@code GetArchitectureAsString}. */
    static String architecture(Architecture architecture) {
        return switch (architecture) {
            case KEPLER -> "Kepler";
            case MAXWELL -> "Maxwell";
            case PASCAL -> "Pascal";
            case VOLTA -> "Volta";
            case TURING -> "Turing";
            case AMPERE -> "Ampere";
            case ADA -> "Ada Lovelace";
            case HOPPER -> "Hopper";
            case BLACKWELL -> "Blackwell";
            case UNKNOWN -> "Unknown";
        };
    }

    /** go-nvlib's {@code GetBrandAsString}. */
    static String brand(Brand brand) {
        return switch (brand) {
            case UNKNOWN -> "Unknown";
            case QUADRO -> "Quadro";
            case TESLA -> "Tesla";
            case NVS -> "NVS";
            case GRID -> "Grid";
            case GEFORCE -> "GeForce";
            case TITAN -> "Titan";
            case NVIDIA_VAPPS -> "NvidiaVApps";
            case NVIDIA_VPC -> "NvidiaVPC";
            case NVIDIA_VCS -> "NvidiaVCS";
            case NVIDIA_VWS -> "NvidiaVWS";
            case NVIDIA_CLOUD_GAMING -> "NvidiaCloudGaming";
            case QUADRO_RTX -> "QuadroRTX";
            case NVIDIA_RTX -> "NvidiaRTX";
            case NVIDIA -> "Nvidia";
            case GEFORCE_RTX -> "GeForceRTX";
            case TITAN_RTX -> "TitanRTX";
        };
    }

    static PcieProximity proximity(TopologyLevel level) {
        return switch (level) {
            case INTERNAL -> PcieProximity.SAME_BOARD;
            case SINGLE -> PcieProximity.SINGLE_SWITCH;
            case MULTIPLE -> PcieProximity.MULTIPLE_SWITCHES;
            case HOSTBRIDGE -> PcieProximity.HOST_BRIDGE;
            case NODE -> PcieProximity.SAME_NUMA_NODE;
            case SYSTEM -> PcieProximity.ACROSS_NUMA_NODES;
        };
    }

    /**
     * NVLinks between two GPUs: links from one straight to the other, plus for each NVSwitch both reach
     * (a remote end that is no GPU) the links they both have to it.
     */
    static int nvlinks(List<String> endsA, List<String> endsB, String busA, String busB, Set<String> gpuBusIds) {
        int direct = (int) endsA.stream().filter(busB::equals).count();
        if (direct == 0) {
            direct = (int) endsB.stream().filter(busA::equals).count();
        }
        Map<String, Integer> switchesA = new LinkedHashMap<>();
        endsA.stream().filter(e -> !gpuBusIds.contains(e)).forEach(e -> switchesA.merge(e, 1, Integer::sum));
        Map<String, Integer> switchesB = new HashMap<>();
        endsB.stream().filter(e -> !gpuBusIds.contains(e)).forEach(e -> switchesB.merge(e, 1, Integer::sum));
        int viaSwitches = 0;
        for (Map.Entry<String, Integer> entry : switchesA.entrySet()) {
            viaSwitches += Math.min(entry.getValue(), switchesB.getOrDefault(entry.getKey(), 0));
        }
        return direct + viaSwitches;
    }

    /** Bus ids compare case-insensitively and with or without the 8-digit domain. */
    static String normalise(String busId) {
        String lower = busId.toLowerCase(java.util.Locale.ROOT);
        int colon = lower.indexOf(':');
        if (colon > 4) {
            lower = lower.substring(colon - 4);
        }
        return lower;
    }

    @Override
    public DeviceProbe probe() {
        return this::probe;
    }

    private Optional<String> probe(PhysicalDevice device) {
        try {
            GpuDevice gpu = nvml.deviceByUuid(device.gpuUuid())
                    .orElseThrow(() -> new IllegalStateException("NVML no longer lists " + device.gpuUuid()));
            gpu.memory();
            if (device instanceof MigInstance mig) {
                MigDevice found = gpu.migDevices().stream().filter(m -> m.uuid().equals(mig.uuid())).findFirst()
                        .orElseThrow(() -> new IllegalStateException("NVML no longer lists " + mig.uuid()));
                found.memory();
            }
            return Optional.empty();
        } catch (NvmlException | IllegalStateException e) {
            return Optional.of(e.getMessage());
        }
    }

    @Override
    public Watch watch(List<PhysicalDevice> devices, DeviceEvents events) {
        try {
            Set<String> gpuUuids = new LinkedHashSet<>();
            devices.forEach(d -> gpuUuids.add(d.gpuUuid()));
            List<GpuDevice> gpus = new ArrayList<>();
            for (String uuid : gpuUuids) {
                gpus.add(nvml.deviceByUuid(uuid).orElseThrow(() -> new DeviceSourceException(
                        "NVML no longer lists " + uuid, null)));
            }
            HealthMonitor monitor = nvml.startHealthMonitor(gpus, event -> deliver(event, events));
            monitor.unmonitoredDevices().forEach(d -> LOG.log(System.Logger.Level.WARNING,
                    "{0} ({1}) reports no health events; XIDs on it cannot be seen", d.uuid(), d.name()));
            return monitor::close;
        } catch (NvmlException e) {
            throw new DeviceSourceException("NVML could not watch health events: " + e.getMessage(), e);
        }
    }

    private static void deliver(HealthEvent event, DeviceEvents events) {
        switch (event) {
            case HealthEvent.XidError xid -> events.xid(xid.gpuUuid(), xid.xid(), xid.gpuInstanceId(), xid.computeInstanceId());
            case HealthEvent.EccError ecc -> LOG.log(System.Logger.Level.DEBUG,
                    "ECC event on {0} (uncorrectable {1}): XIDs decide health, as in NVIDIA''s plugin",
                    ecc.gpuUuid(), ecc.uncorrectable());
            case HealthEvent.MonitorFailure failure -> events.watchFailed(failure.cause().getMessage());
        }
    }

    @Override
    public ComputeModes computeModes() {
        return new ComputeModes() {
            @Override
            public Mode get(String gpuUuid) {
                try {
                    return gpu(gpuUuid).computeMode().map(m -> Mode.valueOf(m.name())).orElseThrow(() ->
                            new DeviceSourceException("NVML reports no compute mode for " + gpuUuid, null));
                } catch (NvmlException e) {
                    throw new DeviceSourceException("NVML could not read the compute mode of " + gpuUuid + ": "
                            + e.getMessage(), e);
                }
            }

            @Override
            public void set(String gpuUuid, Mode mode) {
                try {
                    gpu(gpuUuid).setComputeMode(ComputeMode.valueOf(mode.name()));
                } catch (NvmlException e) {
                    throw new DeviceSourceException(e.getMessage(), e);
                }
            }
        };
    }

    private GpuDevice gpu(String uuid) {
        return nvml.deviceByUuid(uuid).orElseThrow(() -> new DeviceSourceException("NVML no longer lists " + uuid, null));
    }

    @Override
    public void close() {
        nvml.close();
    }
}
