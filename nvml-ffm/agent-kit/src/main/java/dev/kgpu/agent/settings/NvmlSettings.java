package dev.kgpu.agent.settings;

import dev.kgpu.config.v1.ValueType;
import dev.kgpu.nvml.NvmlOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where an agent finds {@code libnvidia-ml.so.1}: the settings every agent reads for {@link NvmlOptions},
 * once, with the rest of its settings. An agent lists {@link #LIBRARY} (and {@link #DRIVER_ROOT} unless it
 * has a driver root of its own) among its settings and builds its options with {@link #options}.
 */
public final class NvmlSettings {

    /** {@code KGPU_NVML_LIBRARY}: a library file to load; wins over the driver root. */
    public static final Setting<Optional<String>> LIBRARY = Setting.of(List.of(), List.of("KGPU_NVML_LIBRARY"),
            ValueType.optional(ValueType.string()), Optional.empty(),
            "kgpu: a libnvidia-ml.so.1 to load (wins over the driver root)");

    /** {@code NVIDIA_DRIVER_ROOT}: the driver's root, where NVML is looked up; {@code /} when unset. */
    public static final Setting<Optional<String>> DRIVER_ROOT = Setting.of(List.of(), List.of("NVIDIA_DRIVER_ROOT"),
            ValueType.optional(ValueType.absolutePath()), Optional.empty(),
            "the driver's root, where libnvidia-ml.so.1 is looked up (default /)");

    private NvmlSettings() {
    }

    /** {@link #LIBRARY}, else {@link #DRIVER_ROOT}, else {@code /}, then the system loader. */
    public static NvmlOptions options(ConfigLoader.Resolved resolved) {
        return options(resolved, Path.of(resolved.get(DRIVER_ROOT).orElse("/")));
    }

    /** {@link #LIBRARY}, else {@code driverRoot}, then the system loader. */
    public static NvmlOptions options(ConfigLoader.Resolved resolved, Path driverRoot) {
        return new NvmlOptions(resolved.get(LIBRARY).map(Path::of), driverRoot);
    }
}
