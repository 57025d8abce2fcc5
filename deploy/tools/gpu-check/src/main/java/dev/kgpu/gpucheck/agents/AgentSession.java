package dev.kgpu.gpucheck.agents;

import dev.kgpu.gpucheck.report.AgentFigures;
import dev.kgpu.simulator.agents.Agent;
import dev.kgpu.simulator.agents.AgentProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * One agent started for the check: spawned as its image spawns it, waited on, measured and stopped
 * (SIGTERM, 10 s, then SIGKILL) when closed, whatever happened in between.
 */
final class AgentSession implements AutoCloseable {

    private static final Duration GRACE = Duration.ofSeconds(10);

    private final CheckContext context;
    private final Agent agent;
    private final AgentProcess process;
    private final String readyMeans;
    private long startToReadyMs = -1;
    private long rssKib = -1;
    private String rssKind = "at ready";
    private int exitStatus = -1;

    AgentSession(CheckContext context, Agent agent, String readyMeans, int port, Map<String, String> env) {
        this.context = context;
        this.agent = agent;
        this.readyMeans = readyMeans;
        this.process = context.launcher().start(agent, port, env);
        context.started().accept(process);
    }

    AgentProcess process() {
        return process;
    }

    /** Waits for {@code /q/health/ready}; records start-to-ready and RSS at that moment. */
    Duration awaitReady() {
        Duration ready = process.awaitReady(context.http(), context.timeoutLeft());
        startToReadyMs = ready.toMillis();
        rssKib = process.rssKib().orElse(-1);
        return ready;
    }

    /** Waits for a one-shot agent to exit; records the time to exit and its peak RSS. */
    AgentProcess.Exit awaitExit() {
        AgentProcess.Exit exit = process.awaitExit(context.timeoutLeft());
        startToReadyMs = exit.after().toMillis();
        rssKib = exit.peakRssKib() > 0 ? exit.peakRssKib() : -1;
        rssKind = "peak";
        exitStatus = exit.status();
        return exit;
    }

    /** The figures, once closed. */
    AgentFigures figures() {
        return new AgentFigures(agent.id(), readyMeans, startToReadyMs, rssKib, rssKind, exitStatus,
                process.aotCache().describe());
    }

    @Override
    public void close() {
        Optional<Integer> status = process.stop(GRACE);
        if (exitStatus < 0) {
            exitStatus = status.orElse(-1);
        }
    }

    /** Stops the agent (when one was started) and returns the step's outcome with its figures. */
    static StepOutcome end(java.util.List<dev.kgpu.gpucheck.compare.Finding> findings, AgentSession session,
                           dev.kgpu.gpucheck.report.StepResult.Status status, String detail) {
        Optional<AgentFigures> figures = Optional.empty();
        if (session != null) {
            session.close();
            figures = Optional.of(session.figures());
        }
        return new StepOutcome(findings, figures, status, detail);
    }

    /** A free TCP port on the loopback interface. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on the loopback interface: " + e.getMessage(), e);
        }
    }
}
