package dev.kgpu.benchmarks;

import java.nio.file.Path;
import java.util.List;

/** What the benchmark measures: kgpu's agents in their images, or NVIDIA's agents built from their sources. */
sealed interface Subject permits KgpuImages, NvidiaAgents {

    /** The column heading, e.g. {@code kgpu native (images)}. */
    String name();

    /** One line saying exactly what runs (image digests, binaries and their version). */
    String describe();

    /** Whether this subject has an agent for {@code role} (NVIDIA's exporter needs DCGM, which no mock has). */
    boolean runs(Role role);

    /**
     * Where its discovery publishes, as its DaemonSet runs it: on the Node through the API server (kgpu's) rather
     * than into a feature file for NFD (GFD's {@code --output-file}).
     */
    boolean labelsOnNode();

    /**
     * How to start the agent for {@code role} on {@code node}.
     *
     * @param port       a free loopback port for its HTTP endpoints, where it has them
     * @param labelsFile where discovery writes its labels when it writes a file (GFD's {@code --output-file})
     */
    AgentRun.Launch launch(Role role, BenchNode node, int port, Path labelsFile);

    /** The agent's own files for {@code role}, whose page-cache state the benchmark sets before it starts. */
    List<Path> files(Role role);
}
