package dev.kgpu.plugin.node;

import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;

import java.util.Collection;
import java.util.Objects;
import java.util.function.Function;

/**
 * One way the kubelet gets this node's GPUs: the device-plugin API ({@code dev.kgpu.plugin.deviceplugin}) or dynamic
 * resource allocation ({@code dev.kgpu.plugin.dra}). The {@link NodeRuntime} reads the devices and watches their
 * health; each front-end it runs plans what it serves of them, serves it, and stops when the devices cannot be read
 * any more. The front-ends are peers: neither knows the other; what they share comes through the {@link NodeContext}.
 *
 * <p>Calls come on the node's thread, in this order: {@link #start} once; then, at each (re)start of serving (start,
 * devices readable again, SIGHUP), {@link #plan} and {@link Plan#serve()}; {@link #stopServing} when the devices
 * cannot be served, and once more, last, when the node stops. {@link #status()} may be called from any thread.
 *
 * @param <S> the front-end's own settings
 */
public interface FrontEnd<S> {

    /** In words, for logs and health checks: {@code device plugin}, {@code DRA driver}. */
    String name();

    /** Once, before anything else: what the node offers its front-ends. */
    void start(NodeContext node);

    /**
     * What this front-end would serve of {@code inventory} under {@code settings}; nothing served changes yet.
     *
     * @throws UnservableException when this node cannot be served as {@code settings} say (at start the node gives
     *                             up; on SIGHUP it keeps the running settings)
     */
    Plan plan(NodeInventory inventory, S settings);

    /**
     * Serves nothing any more: {@link NodeStatus.Problem.Stopped} when the node stops for good (the last call), else
     * why the devices cannot be served (the node retries and may plan again).
     */
    void stopServing(NodeStatus.Problem why);

    /** What it has achieved so far; thread-safe. */
    FrontEndStatus status();

    /** What a front-end will serve of one inventory under one load of its settings. */
    interface Plan {

        /** The physical devices it serves, so that the node watches their health. */
        Collection<? extends PhysicalDevice> devices();

        /** Serves it, replacing whatever the front-end served before. */
        void serve();
    }

    /**
     * A front-end with the way to find its settings in each load of the plugin's settings {@code C}.
     *
     * @param <C> the plugin's settings, as the loader composes them
     * @param <S> the front-end's part of them
     */
    record Binding<C, S>(FrontEnd<S> frontEnd, Function<C, S> settings) {

        public Binding {
            Objects.requireNonNull(frontEnd, "frontEnd");
            Objects.requireNonNull(settings, "settings");
        }

        /** Plans {@code frontEnd} with its part of {@code loaded}. */
        Plan plan(NodeInventory inventory, C loaded) {
            return frontEnd.plan(inventory, settings.apply(loaded));
        }
    }

    /** {@code frontEnd}, finding its settings in the plugin's with {@code settings}. */
    static <C, S> Binding<C, S> bind(FrontEnd<S> frontEnd, Function<C, S> settings) {
        return new Binding<>(frontEnd, settings);
    }
}
