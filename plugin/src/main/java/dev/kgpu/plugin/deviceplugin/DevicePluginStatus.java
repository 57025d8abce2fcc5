package dev.kgpu.plugin.deviceplugin;

import dev.kgpu.plugin.node.FrontEndStatus;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the device-plugin front-end has achieved, published after each of its steps for health checks and tests.
 * Immutable.
 *
 * @param resources   the resources planned, by name
 * @param serving     resources whose gRPC server runs
 * @param registered  resources the kubelet accepted since their server (re)started
 * @param registering whether registration is wanted at all (a kubelet socket is configured)
 * @param problems    what keeps it from serving everything it should, now
 */
public record DevicePluginStatus(List<String> resources, Set<String> serving, Set<String> registered, boolean registering,
                                 List<String> problems) implements FrontEndStatus {

    /** Before its first plan is served. */
    public static final DevicePluginStatus STARTING = new DevicePluginStatus(List.of(), Set.of(), Set.of(), true, List.of());

    public DevicePluginStatus {
        resources = List.copyOf(resources);
        serving = Set.copyOf(serving);
        registered = Set.copyOf(registered);
        problems = List.copyOf(problems);
    }

    @Override
    public String frontEnd() {
        return DevicePluginFrontEnd.NAME;
    }

    /** Liveness: every planned resource is served. */
    @Override
    public boolean live() {
        return serving.containsAll(resources);
    }

    /** Readiness: there is something to serve, and every resource is served and (when wanted) registered. */
    @Override
    public boolean ready() {
        return !resources.isEmpty() && serving.containsAll(resources) && (!registering || registered.containsAll(resources));
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("resources", String.join(",", resources));
        details.put("serving", String.join(",", serving));
        details.put("registered", String.join(",", registered));
        return details;
    }
}
