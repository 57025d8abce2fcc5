package dev.kgpu.validator.core;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ValidationPassTest {

    /** Status files in memory, recording every operation in order. */
    static class MemoryStatusFiles implements StatusFiles {
        final Map<Component, List<String>> files = new HashMap<>();
        final List<String> operations = new ArrayList<>();

        @Override
        public void remove(Component component) {
            operations.add("remove " + component);
            files.remove(component);
        }

        @Override
        public void write(Component component, List<String> lines) {
            operations.add("write " + component);
            files.put(component, lines);
        }

        @Override
        public boolean exists(Component component) {
            return files.containsKey(component);
        }

        @Override
        public void writeWorkloadType(GpuWorkload workload) {
            operations.add("write workload-type " + workload);
        }

        @Override
        public void removeAllReadyFiles() {
            files.clear();
        }
    }

    /** A validator that plays back scripted results: null passes, a failure is thrown. */
    static final class Scripted implements ComponentValidator {
        final Component component;
        final Deque<ComponentFailure> script;
        int calls;

        Scripted(Component component, ComponentFailure... failuresThenPass) {
            this.component = component;
            this.script = new ArrayDeque<>(List.of(failuresThenPass));
        }

        @Override
        public Component component() {
            return component;
        }

        @Override
        public Evidence validate() {
            calls++;
            ComponentFailure next = script.poll();
            if (next != null) {
                throw next;
            }
            return new Evidence(component + " ok", List.of("K=" + component));
        }
    }

    private final MemoryStatusFiles files = new MemoryStatusFiles();
    private final List<Duration> slept = new ArrayList<>();

    @Test
    void eachComponentRemovesItsFileFirstAndWritesItOnSuccess() throws Exception {
        files.files.put(Component.DRIVER, List.of("stale"));
        ValidationPass pass = new ValidationPass(List.of(new Scripted(Component.DRIVER), new Scripted(Component.TOOLKIT)),
                files, false, Duration.ofSeconds(5), slept::add);

        List<Verdict> verdicts = pass.run(ValidationPass.FilePolicy.REMOVE_FIRST);

        assertThat(verdicts).extracting(Verdict::line)
                .containsExactly("driver PASSED driver ok", "toolkit PASSED toolkit ok");
        assertThat(files.operations).containsExactly("remove driver", "write driver", "remove toolkit", "write toolkit");
        assertThat(files.files.get(Component.DRIVER)).containsExactly("K=driver");
    }

    @Test
    void firstFailureSkipsTheRestAndRemovesTheirFiles() throws Exception {
        files.files.put(Component.CUDA, List.of());
        Scripted cuda = new Scripted(Component.CUDA);
        ValidationPass pass = new ValidationPass(List.of(
                new Scripted(Component.DRIVER),
                new Scripted(Component.PLUGIN, new ComponentFailure(Layer.DEVICE_PLUGIN, "no nvidia.com/gpu")),
                cuda), files, false, Duration.ofSeconds(5), slept::add);

        List<Verdict> verdicts = pass.run(ValidationPass.FilePolicy.REMOVE_FIRST);

        assertThat(verdicts).extracting(Verdict::line).containsExactly(
                "driver PASSED driver ok",
                "plugin FAILED device-plugin: no nvidia.com/gpu",
                "cuda SKIPPED plugin failed first");
        assertThat(cuda.calls).isZero();
        assertThat(files.files).containsOnlyKeys(Component.DRIVER);
    }

    @Test
    void withWaitRetriesDriverEverySleepIntervalUntilItPasses() throws Exception {
        Scripted driver = new Scripted(Component.DRIVER,
                new ComponentFailure(Layer.DRIVER, "driver not loaded"),
                new ComponentFailure(Layer.DRIVER, "driver not loaded"));
        ValidationPass pass = new ValidationPass(List.of(driver), files, true, Duration.ofSeconds(5), slept::add);

        List<Verdict> verdicts = pass.run(ValidationPass.FilePolicy.REMOVE_FIRST);

        assertThat(verdicts.getFirst().passed()).isTrue();
        assertThat(driver.calls).isEqualTo(3);
        assertThat(slept).containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(5));
    }

    @Test
    void withWaitDoesNotRetryPodComponents() throws Exception {
        Scripted cuda = new Scripted(Component.CUDA, new ComponentFailure(Layer.RUNTIME, "pod failed"));
        ValidationPass pass = new ValidationPass(List.of(cuda), files, true, Duration.ofSeconds(5), slept::add);

        assertThat(pass.run(ValidationPass.FilePolicy.REMOVE_FIRST).getFirst().line())
                .isEqualTo("cuda FAILED runtime: pod failed");
        assertThat(cuda.calls).isEqualTo(1);
    }

    @Test
    void revalidationKeepsTheFileUntilAResultIsKnown() throws Exception {
        files.files.put(Component.DRIVER, List.of("old"));
        ValidationPass pass = new ValidationPass(List.of(new Scripted(Component.DRIVER)), files, false,
                Duration.ofSeconds(5), slept::add);

        pass.run(ValidationPass.FilePolicy.REPLACE_ON_RESULT);

        assertThat(files.operations).containsExactly("write driver");
    }

    @Test
    void anUnexpectedExceptionBecomesAFailedVerdictNotACrash() throws Exception {
        ComponentValidator broken = new ComponentValidator() {
            @Override
            public Component component() {
                return Component.DRIVER;
            }

            @Override
            public Evidence validate() {
                throw new IllegalStateException("bug");
            }
        };
        ValidationPass pass = new ValidationPass(List.of(broken), files, false, Duration.ofSeconds(5), slept::add);

        assertThat(pass.run(ValidationPass.FilePolicy.REMOVE_FIRST).getFirst().line())
                .isEqualTo("driver FAILED driver: unexpected IllegalStateException: bug");
    }

    @Test
    void aStatusFileThatCannotBeWrittenFailsTheComponent() throws Exception {
        StatusFiles readOnly = new MemoryStatusFiles() {
            @Override
            public void write(Component component, List<String> lines) {
                throw new java.io.UncheckedIOException("could not write /run/nvidia/validations/driver-ready:"
                        + " Read-only file system", new java.io.IOException("EROFS"));
            }
        };
        ValidationPass pass = new ValidationPass(List.of(new Scripted(Component.DRIVER), new Scripted(Component.TOOLKIT)),
                readOnly, false, Duration.ofSeconds(5), slept::add);

        assertThat(pass.run(ValidationPass.FilePolicy.REMOVE_FIRST)).extracting(Verdict::line).containsExactly(
                "driver FAILED runtime: could not write /run/nvidia/validations/driver-ready: Read-only file system"
                        + " (OUTPUT_DIR must be a writable directory, a hostPath in a DaemonSet)",
                "toolkit SKIPPED driver failed first");
    }

    @Test
    void reasonsAreFoldedOntoOneLine() {
        assertThat(Verdict.failed(Component.CUDA, Layer.RUNTIME, "pod x failed:\n  line two\n").line())
                .isEqualTo("cuda FAILED runtime: pod x failed: line two");
    }
}
