package dev.kgpu.nvml;

import dev.kgpu.nvml.internal.NvmlSession;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * An initialised NVML: the node's driver, CUDA driver version and GPUs.
 *
 * <p>{@link #open()} loads {@code libnvidia-ml.so.1} (see {@link NvmlOptions}) and calls {@code nvmlInit};
 * {@link #close()} calls {@code nvmlShutdown}. NVML counts initialisations, so several {@code Nvml}
 * instances may be open at once. The shared library itself stays loaded for the life of the process:
 * the first {@code open} fixes its path, and a later {@code open} naming another path fails with
 * {@link NvmlException.LibraryNotFound}.
 *
 * <p>Thread-safety: an {@code Nvml} and every {@link GpuDevice} it hands out may be used from any number
 * of threads at once. After {@link #close()} every call fails with {@link NvmlException.Uninitialized}.
 */
public interface Nvml extends AutoCloseable {

    /** Opens NVML with the options read from the process environment ({@link NvmlOptions#fromEnvironment}). */
    static Nvml open() {
        return open(NvmlOptions.fromEnvironment(System::getenv));
    }

    /** Loads the library that {@code options} name and initialises NVML. */
    static Nvml open(NvmlOptions options) {
        return NvmlSession.open(options);
    }

    /** The {@code libnvidia-ml.so.1} this process loaded. */
    Path libraryPath();

    /** The kernel driver's version, e.g. {@code 550.54.15} ({@code nvmlSystemGetDriverVersion}). */
    String driverVersion();

    /** NVML's own version, e.g. {@code 12.550.54.15} ({@code nvmlSystemGetNVMLVersion}). */
    String nvmlVersion();

    /** The CUDA version the driver supports ({@code nvmlSystemGetCudaDriverVersion_v2}). */
    CudaDriverVersion cudaDriverVersion();

    /** Number of GPUs NVML sees, MIG devices not counted. */
    int deviceCount();

    /** Every GPU in index order. */
    List<GpuDevice> devices();

    /** The GPU with this NVML index. */
    GpuDevice device(int index);

    /** The GPU with this UUID ({@code GPU-...}), or empty when none has it. */
    Optional<GpuDevice> deviceByUuid(String uuid);

    /** The GPU at this PCI bus id (either {@code 00000000:3B:00.0} or {@code 0000:3b:00.0}), or empty. */
    Optional<GpuDevice> deviceByPciBusId(String pciBusId);

    /**
     * Starts watching {@code devices} for critical XID and ECC events on a dedicated platform thread that
     * blocks in {@code nvmlEventSetWait}. Events reach {@code listener} on that thread, in the order NVML
     * reports them; the listener must not block. Devices that do not support events are reported in
     * {@link HealthMonitor#unmonitoredDevices()} rather than failing the whole monitor.
     */
    HealthMonitor startHealthMonitor(List<GpuDevice> devices, Consumer<HealthEvent> listener);

    /** Shuts this instance's NVML initialisation down. Idempotent. */
    @Override
    void close();
}
