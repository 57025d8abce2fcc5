package dev.kgpu.plugin.lifecycle;

import java.util.List;
import java.util.Set;

/**
 * What the supervisor has achieved, published after each event for health checks and tests. Immutable.
 *
 * @param running         the supervisor thread runs
 * @param devicesReadable the driver answered the last time the plugin (re)started
 * @param devicePlugin    the device-plugin API is served at all (not with the DRA driver alone)
 * @param resources       the resources planned, by name
 * @param serving         resources whose gRPC server runs
 * @param registered      resources the kubelet accepted since their server (re)started
 * @param registering     whether registration is wanted at all (a kubelet socket is configured)
 * @param problems        what keeps the plugin from serving everything it should, now
 */
public record PluginStatus(boolean running, boolean devicesReadable, boolean devicePlugin, List<String> resources,
                           Set<String> serving, Set<String> registered, boolean registering, List<Problem> problems) {

    public static final PluginStatus STARTING = new PluginStatus(false, false, true, List.of(), Set.of(), Set.of(), true,
            List.of(new Problem.Starting()));

    public PluginStatus {
        resources = List.copyOf(resources);
        serving = Set.copyOf(serving);
        registered = Set.copyOf(registered);
        problems = List.copyOf(problems);
    }

    /** Liveness: the supervisor runs and every planned resource is served. */
    public boolean live() {
        return running && serving.containsAll(resources);
    }

    /**
     * Readiness: devices were read and, when the device-plugin API is served, there is something to serve and every
     * resource is registered.
     */
    public boolean ready() {
        return running && devicesReadable && (!devicePlugin || (!resources.isEmpty() && serving.containsAll(resources)
                && (!registering || registered.containsAll(resources))));
    }

    /** Something that keeps the plugin from serving everything it should; {@link #message()} says it in words. */
    public sealed interface Problem {

        String message();

        /** The supervisor has not started the servers yet. */
        record Starting() implements Problem {
            @Override
            public String message() {
                return "starting";
            }
        }

        /** The plugin stopped (SIGTERM): nothing is served. */
        record Stopped() implements Problem {
            @Override
            public String message() {
                return "stopped";
            }
        }

        /** The driver did not answer: nothing is served. */
        record DevicesUnreadable(String reason) implements Problem {
            @Override
            public String message() {
                return reason;
            }
        }

        /** The configuration cannot serve this node's devices (the plugin gives up). */
        record Unservable(String reason) implements Problem {
            @Override
            public String message() {
                return reason;
            }
        }

        /** The devices were read and there is nothing to serve. */
        record NoDevices() implements Problem {
            @Override
            public String message() {
                return "no devices found";
            }
        }

        /** A resource's gRPC server could not start; it is retried. */
        record NotServed(String resource, String reason) implements Problem {
            @Override
            public String message() {
                return "could not serve " + resource + ": " + reason;
            }
        }

        /** A resource is served but not registered with the kubelet; it is retried. */
        record NotRegistered(String resource, String reason) implements Problem {
            @Override
            public String message() {
                return "could not register " + resource + ": " + reason;
            }
        }

        /** SIGHUP brought settings the plugin refused; it runs on with the ones it had. */
        record ReloadRejected(String reason) implements Problem {
            @Override
            public String message() {
                return "reload rejected: " + reason;
            }
        }
    }
}
