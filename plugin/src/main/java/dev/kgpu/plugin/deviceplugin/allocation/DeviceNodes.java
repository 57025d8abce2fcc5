package dev.kgpu.plugin.deviceplugin.allocation;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which optional device nodes ({@code /dev/nvidia-uvm}, {@code /dev/nvidia-modeset}, ...) the host has, for the
 * device specs Allocate passes: the host's file system in production, anything in tests. Given to the
 * {@link Allocator} where the plugin is put together. Thread-safe.
 */
@FunctionalInterface
public interface DeviceNodes {

    /** Whether {@code path} (e.g. {@code /dev/nvidia-uvm}) exists under {@code devRoot} ({@code nvidiaDevRoot}). */
    boolean exists(String devRoot, String path);

    /** The host's file system, as this container sees it. */
    static DeviceNodes onHost() {
        return (devRoot, path) -> Files.exists(Path.of(devRoot, path));
    }
}
