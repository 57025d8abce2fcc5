package dev.kgpu.plugin.lifecycle;

import dev.kgpu.plugin.allocation.AllocationSettings;
import dev.kgpu.plugin.allocation.SharedAllocationPolicy;
import dev.kgpu.plugin.resources.ResourcePlanner;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What one loaded configuration means to the supervisor. Immutable; a reload produces a new one.
 *
 * @param kubeletSocket   the kubelet's registration socket; empty means serve but never register
 * @param socketDirectory the device-plugins directory the resource sockets live in
 * @param failOnInitError exit when the devices cannot be read, rather than wait and retry
 * @param planner         which resources to serve
 * @param allocation      how Allocate answers
 * @param sharedPolicy    how replicas are preferred
 * @param description     the effective configuration as JSON, logged after "Running with config:"
 */
public record PluginSetup(Optional<Path> kubeletSocket, Path socketDirectory, boolean failOnInitError,
                          ResourcePlanner planner, AllocationSettings allocation, SharedAllocationPolicy sharedPolicy,
                          String description) {

    public PluginSetup {
        Objects.requireNonNull(kubeletSocket, "kubeletSocket");
        Objects.requireNonNull(socketDirectory, "socketDirectory");
        Objects.requireNonNull(planner, "planner");
        Objects.requireNonNull(allocation, "allocation");
        Objects.requireNonNull(sharedPolicy, "sharedPolicy");
        Objects.requireNonNull(description, "description");
    }
}
