package dev.kgpu.plugin.node;

import dev.kgpu.config.ConfigWarning;

import java.util.List;

/**
 * One load of the plugin's settings, as the node runtime reads it: its own part, and how to log the whole. Each
 * front-end finds its own part through its {@link FrontEnd.Binding}. The plugin's settings record implements it.
 */
public interface NodeConfiguration {

    NodeSettings node();

    /** The effective configuration as JSON, logged after "Running with config:". */
    String description();

    /** Accepted but suspicious settings, logged at WARN. */
    List<ConfigWarning> warnings();
}
