package dev.kgpu.validator.core;

import java.util.Objects;

/**
 * A component that passes when its kernel module is loaded, as gpu-operator's validator checks with
 * {@code lsmod}: {@code nvidia-fs} ({@code nvidia_fs}, GPUDirect Storage), {@code gdrcopy} ({@code gdrdrv}) and
 * {@code nvidia-peermem} ({@code nvidia_peermem}, GPUDirect RDMA). Each writes its empty {@code *-ready} file.
 */
public final class KernelModuleValidator implements ComponentValidator {

    private final Component component;
    private final String module;
    private final String feature;
    private final KernelModules modules;

    private KernelModuleValidator(Component component, String module, String feature, KernelModules modules) {
        this.component = component;
        this.module = module;
        this.feature = feature;
        this.modules = Objects.requireNonNull(modules, "modules");
    }

    /** The validator of {@code nvidia-fs}, {@code gdrcopy} or {@code nvidia-peermem}. */
    public static KernelModuleValidator of(Component component, KernelModules modules) {
        return switch (component) {
            case NVIDIA_FS -> new KernelModuleValidator(component, "nvidia_fs", "GPUDirect Storage", modules);
            case GDRCOPY -> new KernelModuleValidator(component, "gdrdrv", "GDRCopy", modules);
            case NVIDIA_PEERMEM -> new KernelModuleValidator(component, "nvidia_peermem", "GPUDirect RDMA", modules);
            default -> throw new IllegalArgumentException(component + " is no kernel-module component");
        };
    }

    @Override
    public Component component() {
        return component;
    }

    @Override
    public Evidence validate() {
        if (!modules.loaded(module)) {
            throw new ComponentFailure(Layer.DRIVER, "kernel module " + module + " is not loaded (lsmod lists no "
                    + module + "); " + feature + " needs it: load it, or let the driver container load it");
        }
        return Evidence.of("kernel module " + module + " is loaded (" + feature + ")");
    }
}
