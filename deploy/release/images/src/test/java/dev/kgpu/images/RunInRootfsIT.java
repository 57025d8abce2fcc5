package dev.kgpu.images;

import dev.kgpu.agent.testing.IgnoredSignals;
import dev.kgpu.exporter.testing.Await;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * {@code run-in-rootfs}, through which build-images' AOT training runs each agent's packaged ITs in the image's files:
 * the signals a pod's agent is sent (SIGTERM to stop, SIGINT, SIGHUP to reload its config) reach the command in the
 * sandbox, and the command's own exit status comes back. A signal that stopped at the wrapper would end it with
 * 128 + the signal's number and take the agent down with it ({@code --die-with-parent}).
 */
class RunInRootfsIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** What the command exits with once it got the signal: neither 0 nor any 128 + n. */
    private static final int HANDLED = 42;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT", "HUP"})
    void passesTheSignalToTheCommandAndReturnsItsStatus(String signal) throws IOException, InterruptedException {
        // a signal this JVM was started with ignored is ignored by all it starts: nothing to pass on then
        assumeFalse(IgnoredSignals.ignored(number(signal)), "SIG" + signal + " is ignored by this JVM, and so by what it starts");
        Path rootfs = Files.createDirectories(dir.resolve("rootfs/opt")).getParent();
        Path ready = dir.resolve("ready");
        Path output = dir.resolve("output");
        // the host's /usr holds the command's bash; it says it is ready once its trap is in, then waits in the wait
        // builtin, which a trapped signal ends at once (a foreground child would make bash drop a SIGINT it survived)
        String command = "sleep 600 & waiting=$!; trap \"kill $waiting; exit " + HANDLED + "\" " + signal + "; : > "
                + ready + "; wait $waiting";
        Process wrapper = new ProcessBuilder(List.of(
                Images.root().resolve("deploy/release/images/run-in-rootfs").toString(), rootfs.toString(),
                "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
                "--symlink", "usr/lib64", "/lib64", "--bind", dir.toString(), dir.toString(),
                "--", "/bin/bash", "-c", command))
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            Await.until("the command ready, or run-in-rootfs ended", WAIT, () -> Files.exists(ready) || !wrapper.isAlive());
            assertThat(wrapper.isAlive()).as("run-in-rootfs still running once the command was ready: %s",
                    Files.readString(output, StandardCharsets.UTF_8)).isTrue();

            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(wrapper.pid())).inheritIO().start();
            assertThat(kill.waitFor(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            assertThat(kill.exitValue()).isZero();

            assertThat(wrapper.waitFor(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("run-in-rootfs ended after SIG%s", signal)
                    .isTrue();
            assertThat(wrapper.exitValue()).as("SIG%s, the status: %s", signal, Files.readString(output, StandardCharsets.UTF_8))
                    .isEqualTo(HANDLED);
        } finally {
            wrapper.destroyForcibly();
        }
    }

    private static int number(String signal) {
        return switch (signal) {
            case "HUP" -> IgnoredSignals.SIGHUP;
            case "INT" -> IgnoredSignals.SIGINT;
            case "TERM" -> IgnoredSignals.SIGTERM;
            default -> throw new IllegalArgumentException("signal was '" + signal + "' but it must be HUP, INT or TERM");
        };
    }
}
