package dev.kgpu.validator;

import dev.kgpu.agent.Supervisor;
import dev.kgpu.validator.adapters.DirectoryStatusFiles;
import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.ComponentFailure;
import dev.kgpu.validator.core.ComponentValidator;
import dev.kgpu.validator.core.Evidence;
import dev.kgpu.validator.core.Layer;
import dev.kgpu.validator.core.ValidationPass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** Daemon mode on the agent kit's supervisor: revalidation, ready files removed at the stop, exit 1 on an Error. */
class DaemonHandlerTest {

    @TempDir
    Path dir;

    /** Passes or fails as told, and reports each finished validation on a queue the test waits on. */
    static final class Switchable implements ComponentValidator {
        final AtomicBoolean healthy = new AtomicBoolean(true);
        final BlockingQueue<Boolean> results = new ArrayBlockingQueue<>(16);

        @Override
        public Component component() {
            return Component.DRIVER;
        }

        @Override
        public Evidence validate() {
            boolean ok = healthy.get();
            results.add(ok);
            if (!ok) {
                throw new ComponentFailure(Layer.DRIVER, "GPU 0 did not answer");
            }
            return Evidence.of("ok");
        }
    }

    private static void awaitValidation(Switchable validator, boolean expected) throws InterruptedException {
        assertThat(validator.results.poll(10, TimeUnit.SECONDS)).isEqualTo(expected);
    }

    @Test
    void revalidatesAndRemovesItsReadyFilesWhenStopped() throws Exception {
        Switchable validator = new Switchable();
        DirectoryStatusFiles files = new DirectoryStatusFiles(dir);
        ValidationState state = new ValidationState();
        ValidationPass pass = new ValidationPass(List.of(validator), files, false, Duration.ofSeconds(5), d -> { });
        Supervisor<Duration, DaemonHandler.Revalidate> supervisor = DaemonHandler.start(
                new DaemonHandler(pass, files, state), Duration.ofHours(1));
        awaitValidation(validator, true);
        awaitCondition(state::allValid);
        assertThat(files.exists(Component.DRIVER)).isTrue();

        validator.healthy.set(false);
        supervisor.post(DaemonHandler.Revalidate.NOW);
        awaitValidation(validator, false);
        awaitCondition(() -> !state.allValid());
        assertThat(state.latest().getFirst().line()).isEqualTo("driver FAILED driver: GPU 0 did not answer");
        assertThat(files.exists(Component.DRIVER)).isFalse();

        validator.healthy.set(true);
        supervisor.post(DaemonHandler.Revalidate.NOW);
        awaitValidation(validator, true);
        awaitCondition(state::allValid);

        supervisor.stop(Duration.ofSeconds(30));
        assertThat(files.exists(Component.DRIVER)).isFalse();
    }

    @Test
    void anErrorInAPassEndsTheProcessWithStatusOneNeverZero() throws Exception {
        ComponentValidator exhausted = new ComponentValidator() {
            @Override
            public Component component() {
                return Component.DRIVER;
            }

            @Override
            public Evidence validate() {
                throw new OutOfMemoryError("Java heap space (thrown by the test)");
            }
        };
        DirectoryStatusFiles files = new DirectoryStatusFiles(dir);
        ValidationPass pass = new ValidationPass(List.of(exhausted), files, false, Duration.ofSeconds(5), d -> { });
        Supervisor<Duration, DaemonHandler.Revalidate> supervisor = DaemonHandler.start(
                new DaemonHandler(pass, files, new ValidationState()), Duration.ofHours(1));

        // the process exits with what the supervisor ends with
        assertThat(supervisor.awaitExit(Duration.ofSeconds(10))).as("the process asked to exit").isPresent();
        assertThat(supervisor.awaitExit()).isEqualTo(1);
        supervisor.stop(Duration.ofSeconds(30));
        supervisor.stop(Duration.ofSeconds(30));
    }

    /** Polls a condition the supervisor thread sets right after the validation the test already saw. */
    private static void awaitCondition(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Object monitor = new Object();
        synchronized (monitor) {
            while (!condition.getAsBoolean()) {
                assertThat(System.nanoTime()).as("condition within 10 s").isLessThan(deadline);
                monitor.wait(10);
            }
        }
    }
}
