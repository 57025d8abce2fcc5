package dev.kgpu.simulator;

import dev.kgpu.simulator.agents.Agent;
import dev.kgpu.simulator.agents.AgentProcess;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Footprint mode: starts the agents {@code runs} times on the simulated node and reports the median
 * start-to-ready time and RSS of each, for docs/benchmarks.md.
 *
 * <p>Each run starts the agents one after the other, each alone on the machine while it starts (the ones
 * before it idle), in a node's order: plugin, discovery, exporter, validator; then stops them all. Start-to-ready
 * runs from spawning the process to its readiness probe ({@code /q/health/ready}) answering UP; RSS is
 * {@code VmRSS} at that moment. The validator runs as a daemon (its long-running mode), so its "ready" is its
 * first pass finding every component valid: two CUDA sample pods included, each polled at
 * {@code SLEEP_INTERVAL_SECONDS=1}.
 */
final class Footprint {

    private static final List<Agent> ORDER = List.of(Agent.PLUGIN, Agent.DISCOVERY, Agent.EXPORTER, Agent.VALIDATOR);

    private Footprint() {
    }

    /** One agent in one run. */
    record Sample(Duration startToReady, long rssKib, boolean aotCacheUsed) {
    }

    /** Runs the agents {@code runs} times and returns the markdown table. */
    static String run(SimulatedNode node, int runs, PrintStream progress) {
        Map<Agent, List<Sample>> samples = new EnumMap<>(Agent.class);
        for (int run = 1; run <= runs; run++) {
            List<AgentProcess> started = new ArrayList<>();
            try {
                StringBuilder line = new StringBuilder("kgpu-sim: run " + run + "/" + runs + ":");
                for (Agent agent : ORDER) {
                    AgentProcess process = node.start(agent);
                    started.add(process);
                    SimulatedNode.Ready ready = node.awaitReady(process);
                    Sample sample = new Sample(ready.startToReady(), ready.rssKib(), process.aotCache().used());
                    samples.computeIfAbsent(agent, a -> new ArrayList<>()).add(sample);
                    line.append(String.format(Locale.ROOT, " %s %.2f s %d MiB;", agent.id(),
                            sample.startToReady().toMillis() / 1000.0, sample.rssKib() / 1024));
                    if (agent == Agent.PLUGIN) {
                        node.awaitNodeResources();
                    }
                }
                progress.println(line);
            } finally {
                started.reversed().forEach(node::stop);
            }
        }
        return table(samples, runs, node.launcher().jvmOptions().map(p -> "@" + node.options().root().relativize(p))
                .orElse("none (deploy/release/images/jvm.options does not exist: the JVM's defaults)"));
    }

    static String table(Map<Agent, List<Sample>> samples, int runs, String jvmOptions) {
        StringBuilder table = new StringBuilder();
        table.append("| agent | start-to-ready (median of ").append(runs).append(") | RSS at ready (median) | AOT cache used |\n");
        table.append("|---|---|---|---|\n");
        samples.forEach((agent, list) -> {
            List<Duration> times = list.stream().map(Sample::startToReady).sorted().toList();
            List<Long> rss = list.stream().map(Sample::rssKib).sorted().toList();
            long used = list.stream().filter(Sample::aotCacheUsed).count();
            table.append(String.format(Locale.ROOT, "| %s | %.2f s | %.0f MiB | %s |%n", agent.id(),
                    medianMillis(times) / 1000.0, median(rss) / 1024.0,
                    used == list.size() ? "yes" : used == 0 ? "no" : used + " of " + list.size() + " runs"));
        });
        table.append("\nJVM options: ").append(jvmOptions).append(". Start-to-ready: process spawn to /q/health/ready UP")
                .append(" (plugin: registered; discovery: labels on the Node; exporter: first collection; validator")
                .append(" daemon: first pass with all four components valid, two sample pods at a 1 s poll).")
                .append(" Each agent started alone, in that order; RSS is VmRSS at ready.\n");
        return table.toString();
    }

    static double medianMillis(List<Duration> sorted) {
        return median(sorted.stream().map(Duration::toMillis).toList());
    }

    static double median(List<Long> sorted) {
        int n = sorted.size();
        if (n == 0) {
            return 0;
        }
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
    }
}
