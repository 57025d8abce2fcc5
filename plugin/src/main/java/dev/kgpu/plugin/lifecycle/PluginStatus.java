package dev.kgpu.plugin.lifecycle;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the supervisor has achieved, published after each event for health checks and tests. Immutable.
 *
 * @param running         the supervisor thread runs
 * @param devicesReadable the driver answered the last time the plugin (re)started
 * @param resources       the resources planned, by name
 * @param serving         resources whose gRPC server runs
 * @param registered      resources the kubelet accepted since their server (re)started
 * @param registering     whether registration is wanted at all (a kubelet socket is configured)
 * @param problem         the last thing that went wrong and is not resolved, if any
 * @param starts          how many times the servers were (re)started
 */
public record PluginStatus(boolean running, boolean devicesReadable, List<String> resources, Set<String> serving,
                           Set<String> registered, boolean registering, Optional<String> problem, long starts) {

    public static final PluginStatus STARTING = new PluginStatus(false, false, List.of(), Set.of(), Set.of(), true,
            Optional.of("starting"), 0);

    public PluginStatus {
        resources = List.copyOf(resources);
        serving = Set.copyOf(serving);
        registered = Set.copyOf(registered);
    }

    /** Liveness: the supervisor runs and every planned resource is served. */
    public boolean live() {
        return running && serving.containsAll(resources);
    }

    /** Readiness: devices were read, there is something to serve, and every resource is registered. */
    public boolean ready() {
        return running && devicesReadable && !resources.isEmpty() && serving.containsAll(resources)
                && (!registering || registered.containsAll(resources));
    }
}
