package dev.kgpu.plugin.mps;

import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.MigInstance;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.devices.Replication;
import dev.kgpu.plugin.node.UnservableException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one MPS control daemon serves: an MPS-shared resource, the GPUs its replicas live on and the limits every
 * client gets by default, as NVIDIA's {@code mps-control-daemon} computes them ({@code daemon.go}, v0.17): each GPU's
 * pinned memory is its memory divided by its replicas (whole MiB), and the active thread percentage is 100 divided by
 * the replicas per GPU (whole percent). Immutable.
 *
 * @param resource         e.g. {@code nvidia.com/gpu} or {@code nvidia.com/gpu.shared}
 * @param gpus             the GPUs shared, by NVML index
 * @param threadPercentage {@code set_default_active_thread_percentage}; 0: not set (MPS's own default, 100)
 */
public record MpsShare(String resource, List<GpuShare> gpus, int threadPercentage) {

    /** The most MPS clients of one GPU from compute capability 7.5 on (Turing), and before it. */
    static final int MAX_CLIENTS = 48;
    static final int MAX_CLIENTS_BEFORE_TURING = 16;

    public MpsShare {
        Objects.requireNonNull(resource, "resource");
        gpus = List.copyOf(gpus);
        if (gpus.isEmpty()) {
            throw new IllegalArgumentException("gpus was '[]' but an MPS share needs a GPU");
        }
    }

    /**
     * One GPU of a share.
     *
     * @param index                NVML's index, how the daemon's commands name the GPU
     * @param replicas             how many times the resource lists it
     * @param pinnedMemoryMiB      {@code set_default_device_pinned_mem_limit}; 0 when NVML does not report the memory
     *                             (no limit set, as NVIDIA skips it)
     */
    public record GpuShare(int index, String uuid, int replicas, long pinnedMemoryMiB) {

        public GpuShare {
            Objects.requireNonNull(uuid, "uuid");
        }

        /** The daemon's command that pins this GPU's memory, e.g. {@code set_default_device_pinned_mem_limit 0 8192M}. */
        public String pinnedMemoryCommand() {
            return pinnedMemoryCommand(index);
        }

        /** The same for the GPU named {@code device} (its place in the daemon's {@code CUDA_VISIBLE_DEVICES}). */
        public String pinnedMemoryCommand(int device) {
            return "set_default_device_pinned_mem_limit " + device + " " + pinnedMemoryMiB + "M";
        }
    }

    /** The daemon's command that sets the thread percentage, e.g. {@code set_default_active_thread_percentage 10}. */
    public String threadPercentageCommand() {
        return "set_default_active_thread_percentage " + threadPercentage;
    }

    /**
     * The shares of the MPS-shared resources among {@code planned} (what the device plugin advertises), in its order.
     *
     * @throws UnservableException when MPS cannot share what the config asks for on this node: MIG devices, a GPU with
     *                             MIG enabled, or more replicas of a GPU than MPS serves clients on it
     */
    public static List<MpsShare> of(List<PluginResource> planned) {
        List<MpsShare> shares = new ArrayList<>();
        for (PluginResource resource : planned) {
            if (resource.replication() instanceof Replication.Shared shared && shared.mps()) {
                shares.add(of(resource));
            }
        }
        return List.copyOf(shares);
    }

    private static MpsShare of(PluginResource resource) {
        Map<Gpu, Integer> replicas = new LinkedHashMap<>();
        int advertised = 0;
        for (AdvertisedDevice device : resource.devices()) {
            if (!device.isReplica()) {
                continue; // a device the config does not share stays whole, without MPS
            }
            PhysicalDevice physical = device.device();
            if (physical instanceof MigInstance mig) {
                throw new UnservableException("MPS cannot share MIG devices, and " + resource.name() + " lists "
                        + mig.uuid() + " (GPU " + mig.parentIndex() + "); NVIDIA's plugin refuses MPS with MIG devices too");
            }
            Gpu gpu = (Gpu) physical;
            if (gpu.migEnabled()) {
                throw new UnservableException("MPS cannot share GPU " + gpu.index() + " (" + gpu.uuid() + ") of "
                        + resource.name() + ": it has MIG enabled, and NVML keeps a MIG-enabled GPU's compute mode"
                        + " DEFAULT (NVIDIA's feature discovery does not label such a node nvidia.com/mps.capable)");
            }
            replicas.merge(gpu, 1, Integer::sum);
            advertised++;
        }
        List<GpuShare> gpus = new ArrayList<>();
        replicas.entrySet().stream().sorted(Map.Entry.comparingByKey(java.util.Comparator.comparingInt(Gpu::index)))
                .forEach(e -> {
                    Gpu gpu = e.getKey();
                    int count = e.getValue();
                    int max = maxClients(gpu.details().cudaComputeCapability());
                    if (count > max) {
                        throw new UnservableException("sharing.mps replicas of " + resource.name() + " was '" + count
                                + "' but it must be at most " + max + ", the MPS clients GPU " + gpu.index()
                                + " (compute capability " + gpu.details().cudaComputeCapability() + ") serves");
                    }
                    long memory = gpu.details().memoryBytes().orElse(0);
                    gpus.add(new GpuShare(gpu.index(), gpu.uuid(), count, memory / count / (1024 * 1024)));
                });
        int perGpu = advertised / gpus.size();
        return new MpsShare(resource.name(), gpus, 100 / perGpu);
    }

    /** MPS's client limit of a GPU: 48 from compute capability 7.5, 16 before (NVIDIA's {@code device.go}). */
    static int maxClients(String computeCapability) {
        String[] parts = computeCapability.split("\\.");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            return major > 7 || (major == 7 && minor >= 5) ? MAX_CLIENTS : MAX_CLIENTS_BEFORE_TURING;
        } catch (NumberFormatException e) {
            return MAX_CLIENTS_BEFORE_TURING;
        }
    }
}
