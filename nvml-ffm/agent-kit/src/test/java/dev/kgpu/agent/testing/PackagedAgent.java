package dev.kgpu.agent.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One packaged agent ({@code <module>/target/quarkus-app/quarkus-run.jar}) run as a process, as its image runs
 * it ({@code java @deploy/release/images/jvm.options -jar quarkus-run.jar}: a 48 MiB heap, so a bomb that got past the
 * budgets would end in OutOfMemoryError here), with its stdout and stderr kept whole in files: for the corpus
 * rows that must be seen end to end (exit status, every line printed, SIGHUP). Under the native profile the
 * same tests launch the module's native executable instead ({@link #command()}).
 *
 * <pre>{@code
 * try (PackagedAgent plugin = PackagedAgent.start(dir, Map.of("CONFIG_FILE", "/dev/zero"))) {
 *     PackagedAgent.Exit exit = plugin.awaitExit(Duration.ofSeconds(60));
 *     assertThat(exit.status()).isEqualTo(1);
 * }
 * }</pre>
 *
 * <p>The module is the working directory of the test (surefire's and failsafe's). Not thread-safe.
 */
public final class PackagedAgent implements AutoCloseable {

    /** How an agent ended: its status and everything it printed. */
    public record Exit(int status, String stdout, String stderr) {
        /** stdout and stderr, in that order. */
        public String output() {
            return stdout + stderr;
        }
    }

    /**
     * The status of an agent stopped by SIGTERM: 0, as NVIDIA's agents exit after a clean stop
     * ({@code dev.kgpu.agent.StopSignal}; a JVM left to itself would end with 143, 128 + 15).
     */
    public static final int STOPPED_BY_SIGTERM = 0;

    /** The system property naming the native executable to launch instead of the jar (Quarkus' convention). */
    public static final String NATIVE_IMAGE_PATH = "native.image.path";

    private final Process process;
    private final Path stdout;
    private final Path stderr;

    private PackagedAgent(Process process, Path stdout, Path stderr) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /**
     * Starts this module's packaged agent with the test's environment plus {@code env}.
     *
     * @param dir where its output files go
     */
    public static PackagedAgent start(Path dir, Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(command());
        command.addAll(List.of(args));
        try {
            Files.createDirectories(dir);
            Path out = Files.createTempFile(dir, "agent", ".stdout");
            Path err = Files.createTempFile(dir, "agent", ".stderr");
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            builder.environment().putAll(env);
            return new PackagedAgent(builder.start(), out, err);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * How this module's packaged agent is launched, before its own arguments: its native executable when the
     * system property {@value #NATIVE_IMAGE_PATH} names one (the native Maven profile sets it, as Quarkus' own
     * {@code @QuarkusIntegrationTest} reads it), else {@code java @deploy/release/images/jvm.options -jar
     * target/quarkus-app/quarkus-run.jar} with this JVM's {@code java}.
     */
    public static List<String> command() {
        String executable = System.getProperty(NATIVE_IMAGE_PATH, "");
        if (!executable.isBlank()) {
            Path runner = Path.of(executable).toAbsolutePath();
            if (!Files.isExecutable(runner)) {
                throw new IllegalStateException(runner + " (" + NATIVE_IMAGE_PATH + ") was missing but it must be there: "
                        + "build it with the module's native profile first");
            }
            return List.of(runner.toString());
        }
        Path jar = Path.of("target/quarkus-app/quarkus-run.jar").toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " was missing but it must be there: run the module's package phase first");
        }
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "@" + jvmOptions(), "-jar", jar.toString());
    }

    /** The images' JVM options, {@code deploy/release/images/jvm.options} of the checkout the module is in. */
    public static Path jvmOptions() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path options = dir.resolve("deploy/release/images/jvm.options");
            if (Files.isRegularFile(options)) {
                return options;
            }
        }
        throw new IllegalStateException("deploy/release/images/jvm.options was not found above " + Path.of("").toAbsolutePath());
    }

    /** Waits for the agent to end; fails when it has not within {@code timeout}. */
    public Exit awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the agent did not end within " + timeout + "; it printed:\n" + output());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return new Exit(process.exitValue(), read(stdout), read(stderr));
    }

    /** Everything printed so far, stdout then stderr. */
    public String output() {
        return read(stdout) + read(stderr);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Sends SIGHUP, as NVIDIA's config-manager sidecar does after switching the config file. */
    public void hangUp() {
        signal("HUP");
    }

    /** Sends SIGTERM, as the kubelet does to stop a container. */
    public void terminate() {
        signal("TERM");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The HTTP status of {@code path} on {@code port} of this host, or -1 when nothing answers. */
    public static int status(int port, String path) {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /**
     * Waits until {@code condition} holds, polling; fails with what the agent printed when it does not within
     * {@code timeout} or when the agent ends first.
     */
    public void await(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (!process.isAlive()) {
                throw new AssertionError("the agent ended (status " + process.exitValue() + ") before " + what
                        + "; it printed:\n" + output());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + timeout + ": " + what + "; the agent printed:\n" + output());
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** A port nothing listens on now. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Ends the agent if it still runs (SIGKILL after 20 s of SIGTERM). */
    @Override
    public void close() {
        if (process.isAlive()) {
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

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
