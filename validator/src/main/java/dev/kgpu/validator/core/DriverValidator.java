package dev.kgpu.validator.core;

import java.util.Locale;

/**
 * {@code driver}: NVML opens, reports the driver version, and every GPU answers its UUID, name and memory.
 * Writes {@code driver-ready} with the driver roots and versions.
 */
public final class DriverValidator implements ComponentValidator {

    private final GpuDriver driver;
    private final DriverRoots roots;

    public DriverValidator(GpuDriver driver, DriverRoots roots) {
        this.driver = driver;
        this.roots = roots;
    }

    @Override
    public Component component() {
        return Component.DRIVER;
    }

    @Override
    public Evidence validate() {
        DriverSnapshot snapshot = driver.probe();
        if (snapshot.gpus().isEmpty()) {
            throw new ComponentFailure(Layer.DRIVER, "NVML (" + snapshot.library() + ", driver "
                    + snapshot.driverVersion() + ") sees no GPU; check that the GPUs are bound to the nvidia"
                    + " kernel module (lspci -k)");
        }
        long memoryMiB = snapshot.gpus().stream().mapToLong(DriverSnapshot.Gpu::memoryTotalBytes).sum() >> 20;
        String summary = String.format(Locale.ROOT, "driver %s, CUDA %s, %d GPU%s answered (%s, %d MiB in all)",
                snapshot.driverVersion(), snapshot.cudaVersion(), snapshot.gpus().size(),
                snapshot.gpus().size() == 1 ? "" : "s", snapshot.gpus().getFirst().name(), memoryMiB);
        return new Evidence(summary, roots.statusLines(snapshot));
    }
}
