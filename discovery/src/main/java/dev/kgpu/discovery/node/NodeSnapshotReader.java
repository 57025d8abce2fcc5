package dev.kgpu.discovery.node;

import dev.kgpu.discovery.labels.DriverVersions;
import dev.kgpu.discovery.labels.Gpu;
import dev.kgpu.discovery.labels.MigInstance;
import dev.kgpu.discovery.labels.NodeSnapshot;
import dev.kgpu.discovery.labels.VgpuScan;
import dev.kgpu.nvml.CudaDriverVersion;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.GpuFabricInfo;
import dev.kgpu.nvml.MigDevice;
import dev.kgpu.nvml.MigMode;
import dev.kgpu.nvml.MigProfile;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlException;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads one {@link NodeSnapshot} from NVML and sysfs: the only place where discovery touches nvml-ffm.
 *
 * <p>It reads what GFD's resource manager reads, the same way: a GPU whose memory NVML cannot report
 * gets no memory label; MIG devices are listed only on GPUs whose MIG mode is on now; a GPU is
 * fabric-attached when its fabric registration has completed with a non-zero cluster UUID. GPUs named
 * {@code DGX Display} or {@code NVIDIA DGX Display} (the DGX Station's display adapter) are skipped, as
 * go-nvlib skips them.
 *
 * <p>Thread-safety: stateless apart from its collaborators; called from the supervisor thread.
 */
public final class NodeSnapshotReader {

    private static final System.Logger LOG = System.getLogger(NodeSnapshotReader.class.getName());
    static final Set<String> SKIPPED_MODELS = Set.of("DGX Display", "NVIDIA DGX Display");
    private static final String ZERO_UUID = "00000000-0000-0000-0000-000000000000";

    private final SysfsPci sysfs;

    public NodeSnapshotReader(SysfsPci sysfs) {
        this.sysfs = sysfs;
    }

    /** The snapshot of a node whose NVML is open; NVML failures other than "not supported" propagate. */
    public NodeSnapshot read(Nvml nvml, String machineType) {
        CudaDriverVersion cuda = nvml.cudaDriverVersion();
        DriverVersions driver = new DriverVersions(nvml.driverVersion(), cuda.major(), cuda.minor());
        List<Gpu> gpus = new ArrayList<>();
        for (GpuDevice device : nvml.devices()) {
            if (SKIPPED_MODELS.contains(device.name())) {
                continue;
            }
            gpus.add(gpu(device));
        }
        return new NodeSnapshot(Optional.of(driver), gpus, machineType, vgpu());
    }

    /** The snapshot of a node whose NVML cannot be used. */
    public NodeSnapshot readWithoutNvml(String machineType) {
        return NodeSnapshot.withoutNvml(machineType, vgpu());
    }

    private VgpuScan vgpu() {
        VgpuScan scan = sysfs.scanVgpu();
        if (scan instanceof VgpuScan.Unreadable(String reason)) {
            LOG.log(Level.DEBUG, "no vGPU labels: {0}", reason);
        }
        return scan;
    }

    private Gpu gpu(GpuDevice device) {
        long memoryMiB;
        try {
            memoryMiB = device.memory().totalMiB();
        } catch (NvmlException e) {
            LOG.log(Level.WARNING, "ignoring the memory of GPU {0,number,#}: {1}", device.index(), e.getMessage());
            memoryMiB = 0;
        }
        Optional<MigMode> mig = device.migMode();
        boolean migEnabled = mig.map(MigMode::currentEnabled).orElse(false);
        List<MigInstance> migs = migEnabled ? device.migDevices().stream().map(NodeSnapshotReader::migInstance).toList() : List.of();
        Optional<Gpu.Fabric> fabric = device.fabricInfo()
                .filter(info -> info.state() == GpuFabricInfo.COMPLETED && !ZERO_UUID.equals(info.clusterUuid()))
                .map(info -> new Gpu.Fabric(info.clusterUuid(), info.cliqueId()));
        var capability = device.computeCapability();
        return new Gpu(device.index(), device.name(), memoryMiB, capability.major(), capability.minor(),
                mig.isPresent(), migEnabled, migs, sysfs.pciClass(device.pci().sysfsBusId()), fabric);
    }

    private static MigInstance migInstance(MigDevice device) {
        MigProfile profile = device.profile();
        return new MigInstance(profile.name(), profile.memoryMiB(), profile.multiprocessorCount(),
                profile.gpuInstanceSlices(), profile.computeInstanceSlices(), profile.copyEngineCount(),
                profile.decoderCount(), profile.encoderCount(), profile.jpegCount(), profile.ofaCount());
    }
}
