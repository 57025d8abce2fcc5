package dev.kgpu.validator.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * What the validator proves, in the order a full pass checks it. The order differs from NVIDIA's init
 * containers (driver, toolkit, cuda, plugin) because kgpu's CUDA sample pod requests {@code nvidia.com/gpu}
 * and so needs the device plugin to have registered first.
 */
public enum Component {
    DRIVER("driver"),
    TOOLKIT("toolkit"),
    PLUGIN("plugin"),
    CUDA("cuda");

    private final String id;

    Component(String id) {
        this.id = id;
    }

    /** The name NVIDIA's {@code COMPONENT} setting uses, e.g. {@code driver}. */
    public String id() {
        return id;
    }

    /** The status file written into {@code OUTPUT_DIR} on success, e.g. {@code driver-ready}. */
    public String statusFileName() {
        return id + "-ready";
    }

    /** The component with this {@link #id()}, ignoring case. */
    public static Optional<Component> byId(String id) {
        String wanted = id.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(c -> c.id.equals(wanted)).findFirst();
    }

    @Override
    public String toString() {
        return id;
    }
}
