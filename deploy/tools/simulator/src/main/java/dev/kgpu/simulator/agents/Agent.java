package dev.kgpu.simulator.agents;

import java.nio.file.Path;

/** The four kgpu agents, as the simulated node runs them: each its module's packaged Quarkus app. */
public enum Agent {
    PLUGIN("plugin", 8081, "registered with the kubelet"),
    DISCOVERY("discovery", 8082, "labels published on the Node"),
    EXPORTER("exporter", 9400, "first collection served"),
    VALIDATOR("validator", 8083, "verdict of every component");

    private final String id;
    private final int defaultPort;
    private final String readyMeans;

    Agent(String id, int defaultPort, String readyMeans) {
        this.id = id;
        this.defaultPort = defaultPort;
        this.readyMeans = readyMeans;
    }

    /** The module and log name, e.g. {@code plugin}. */
    public String id() {
        return id;
    }

    public int defaultPort() {
        return defaultPort;
    }

    /** What "ready" means for this agent, for the summary. */
    public String readyMeans() {
        return readyMeans;
    }

    /** {@code <root>/<module>/target/quarkus-app}. */
    public Path appDirectory(Path root) {
        return root.resolve(id).resolve("target/quarkus-app");
    }
}
