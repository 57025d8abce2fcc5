package dev.kgpu.plugin.lifecycle;

/** The outcome of re-reading the configuration on SIGHUP. */
public sealed interface SetupReload {

    /** The new configuration: the servers restart with it. */
    record Loaded(PluginSetup setup) implements SetupReload {
    }

    /** A bad configuration: the running one stays; {@code message} says why (one line). */
    record Rejected(String message) implements SetupReload {
    }
}
