package dev.kgpu.exporter.testing;

import dev.kgpu.agent.testing.PackagedAgent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged exporter ({@code target/quarkus-app/quarkus-run.jar}) as a process of its own, started as the
 * image starts it ({@code java @deploy/release/images/jvm.options -jar}; its native executable under the native profile:
 * {@link PackagedAgent#command()}), with the test JVM's environment (the mock
 * NVML and its profile, from the failsafe configuration) plus the variables given; its output goes to a
 * file. For what only a real process shows: TLS on the listening port, signals, exit statuses, the one
 * line a bad setting prints.
 */
public final class ExporterProcess implements AutoCloseable {

    private final Process process;
    private final Path output;

    private ExporterProcess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /**
     * Starts the exporter with {@code environment} added to this JVM's and the arguments given.
     *
     * @param dir where its output file goes
     */
    public static ExporterProcess start(Path dir, Map<String, String> environment, String... args) {
        List<String> command = new ArrayList<>(PackagedAgent.command());
        command.addAll(List.of(args));
        Path output = dir.resolve("exporter-" + System.nanoTime() + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        Map<String, String> env = new HashMap<>(environment);
        env.putIfAbsent("NODE_NAME", "process-node");
        env.putIfAbsent("DCGM_EXPORTER_INTERVAL", "1000");
        builder.environment().remove("MOCK_NVML_EVENTS"); // PackagedExporterIT's event file is its own
        builder.environment().putAll(env);
        try {
            return new ExporterProcess(builder.start(), output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A TCP port free on the loopback interface now. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Everything it printed so far. */
    public String output() {
        try {
            return Files.readString(output);
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    /** Waits until it printed a line containing {@code text}; fails with its output on timeout. */
    public void awaitOutput(String text, Duration timeout) {
        Await.until("the exporter to print '" + text + "'; it printed:\n" + output(), timeout,
                () -> output().contains(text) ? Boolean.TRUE : null);
    }

    /** Its exit status; fails when it has not exited within {@code timeout}. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the exporter did not exit within " + timeout + "; it printed:\n" + output());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Sends it a signal, e.g. {@code HUP}. */
    public void signal(String name) {
        try {
            int status = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor();
            if (status != 0) {
                throw new AssertionError("kill -" + name + " " + process.pid() + " failed with " + status);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
