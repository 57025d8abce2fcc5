package dev.kgpu.plugin.deviceplugin;

import dev.kgpu.plugin.deviceplugin.allocation.Allocator;
import dev.kgpu.plugin.deviceplugin.allocation.DeviceNodes;
import dev.kgpu.plugin.deviceplugin.allocation.PreferredAllocator;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.health.HealthTracker;
import dev.kgpu.plugin.node.NodeContext;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The resources of one start of the servers: each one's service (listening to the health tracker while it
 * is served), its endpoint in the kubelet's folder and whether the kubelet accepted it. Serving and
 * registering are retried resource by resource, so one that failed never disturbs the others. Confined to
 * the node's thread.
 */
final class ServedResources {

    private static final System.Logger LOG = System.getLogger(ServedResources.class.getName());

    private final Kubelet kubelet;
    private final DevicePluginMetrics metrics;
    private final HealthTracker health;
    private final Map<String, Served> byName = new LinkedHashMap<>();

    private ServedResources(Kubelet kubelet, DevicePluginMetrics metrics, HealthTracker health, List<ResourceService> services) {
        this.kubelet = kubelet;
        this.metrics = metrics;
        this.health = health;
        services.forEach(s -> byName.put(s.resource().name(), new Served(s)));
    }

    /** Nothing to serve. */
    static ServedResources none(Kubelet kubelet, DevicePluginMetrics metrics, HealthTracker health) {
        return new ServedResources(kubelet, metrics, health, List.of());
    }

    /**
     * A service for each planned resource, allocating as {@code settings} say, listening to the node's health and
     * reserving in its ledger.
     */
    static ServedResources of(List<PluginResource> planned, NodeInventory inventory, DevicePluginSettings settings,
                              DeviceNodes deviceNodes, NodeContext node, Kubelet kubelet, DevicePluginMetrics metrics) {
        HealthTracker health = node.health();
        Allocator allocator = new Allocator(settings.allocation(), deviceNodes, () -> UUID.randomUUID().toString());
        PreferredAllocator preferred = new PreferredAllocator(inventory, settings.sharedPolicy());
        List<ResourceService> services = planned.stream()
                .map(r -> new ResourceService(r, health::isHealthy, allocator, preferred, node.ledger(), node::now)).toList();
        services.forEach(health::addListener);
        services.forEach(node.ledger()::addListener);
        return new ServedResources(kubelet, metrics, health, services);
    }

    /**
     * Holds back {@code name}: it is not served (its server stops if it was) until {@link #release}d, and its problem
     * says why. Returns whether it was served.
     */
    boolean hold(String name, String why) {
        Served served = byName.get(name);
        if (served == null) {
            return false;
        }
        boolean wasServed = served.endpoint != null;
        served.stop();
        served.held = true;
        served.problem = why;
        return wasServed;
    }

    /** Whether {@code name} is held back. */
    boolean isHeld(String name) {
        Served served = byName.get(name);
        return served != null && served.held;
    }

    /** Lets {@code name} be served again, by the next {@link #serve}. */
    void release(String name) {
        Served served = byName.get(name);
        if (served != null && served.held) {
            served.held = false;
            served.problem = null;
        }
    }

    /** Serves every resource that is not served yet and not held back; false when one could not be served. */
    boolean serve() {
        boolean all = true;
        for (Served served : byName.values()) {
            if (served.endpoint != null || served.held) {
                continue;
            }
            String name = served.service.resource().name();
            try {
                served.endpoint = kubelet.serve(served.service);
                served.problem = null;
                LOG.log(System.Logger.Level.INFO, "serving {0} on {1}", served.service.resource(), served.endpoint.socketName());
            } catch (IOException e) {
                LOG.log(System.Logger.Level.ERROR, "could not serve {0}: {1}", name, e.getMessage());
                served.problem = "could not serve " + name + ": " + e.getMessage();
                all = false;
            }
        }
        return all;
    }

    /** Registers every served resource the kubelet has not accepted yet; false when one was not accepted. */
    boolean register() {
        if (!kubelet.registers()) {
            return true;
        }
        boolean all = true;
        for (Served served : byName.values()) {
            if (served.registered || served.endpoint == null) {
                continue;
            }
            String name = served.service.resource().name();
            if (!served.endpoint.serving()) {
                // A starting kubelet deletes every socket in its folder, then creates kubelet.sock: registering now
                // would name a socket that is gone, and the kubelet's dial of it would fail only at its deadline
                // (10 s), holding this thread. The deletion's own event may still be on its way: serve it again first.
                LOG.log(System.Logger.Level.WARNING, "{0} is gone before {1} was registered; serving it again first",
                        served.endpoint.socketName(), name);
                served.stop();
                if (!serve() || served.endpoint == null) {
                    all = false;
                    continue;
                }
            }
            switch (kubelet.register(served.endpoint)) {
                case Kubelet.Registration.Accepted accepted -> {
                    served.registered = true;
                    served.problem = null;
                    metrics.registration(name, true);
                    LOG.log(System.Logger.Level.INFO, "registered {0} with the kubelet", name);
                }
                case Kubelet.Registration.NoKubelet none -> {
                    served.problem = "could not register " + name + ": " + none.reason();
                    LOG.log(System.Logger.Level.INFO, "waiting for the kubelet to register {0}: {1}", name, none.reason());
                    all = false;
                }
                case Kubelet.Registration.Refused refused -> {
                    served.problem = "could not register " + name + ": " + refused.reason();
                    metrics.registration(name, false);
                    LOG.log(System.Logger.Level.WARNING, "could not register {0}: {1}", name, refused.reason());
                    all = false;
                }
            }
        }
        return all;
    }

    /**
     * A file named {@code socketName} was deleted: when it was the socket of a resource that is no longer
     * served, that resource's server stops and it counts as neither served nor registered (to be served
     * again). Returns whether one was. The plugin's own restarts delete sockets too; their new servers
     * still serve, so those deletions change nothing.
     */
    boolean socketDeleted(String socketName) {
        boolean lost = false;
        for (Served served : byName.values()) {
            if (served.endpoint != null && served.endpoint.socketName().equals(socketName) && !served.endpoint.serving()) {
                LOG.log(System.Logger.Level.WARNING, "{0} was deleted; serving {1} again", socketName,
                        served.service.resource().name());
                served.stop();
                lost = true;
            }
        }
        return lost;
    }

    /** Stops every server, removes its socket and stops listening to health. */
    void stop() {
        byName.values().forEach(served -> {
            served.stop();
            health.removeListener(served.service);
            served.service.stopListeningToLedger();
        });
    }

    List<String> names() {
        return List.copyOf(byName.keySet());
    }

    Set<String> serving() {
        Set<String> serving = new LinkedHashSet<>();
        byName.forEach((name, served) -> {
            if (served.endpoint != null && served.endpoint.serving()) {
                serving.add(name);
            }
        });
        return serving;
    }

    Set<String> registered() {
        Set<String> registered = new LinkedHashSet<>();
        byName.forEach((name, served) -> {
            if (served.registered) {
                registered.add(name);
            }
        });
        return registered;
    }

    /** Each resource's problem: not served, or not registered. */
    List<String> problems() {
        List<String> problems = new ArrayList<>();
        byName.values().forEach(served -> {
            if (served.problem != null) {
                problems.add(served.problem);
            }
        });
        return problems;
    }

    private static final class Served {
        final ResourceService service;
        Kubelet.Endpoint endpoint;
        boolean registered;
        /** Not to be served until released (an MPS resource whose control daemon does not run). */
        boolean held;
        String problem;

        Served(ResourceService service) {
            this.service = service;
        }

        void stop() {
            if (endpoint != null) {
                endpoint.stop();
                endpoint = null;
            }
            registered = false;
        }
    }
}
