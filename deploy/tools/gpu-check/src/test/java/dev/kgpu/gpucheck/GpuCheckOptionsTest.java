package dev.kgpu.gpucheck;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GpuCheckOptionsTest {

    @TempDir
    Path dir;

    @Test
    void defaultsRunEveryStepWithinSevenMinutes() {
        GpuCheckOptions options = GpuCheckOptions.parse(List.of("--root=" + dir, "--out=" + dir.resolve("out"), "--work=" + dir.resolve("w")));

        assertThat(options.steps()).containsExactlyInAnyOrder(GpuCheckOptions.Step.values());
        assertThat(options.timeout()).isEqualTo(Duration.ofSeconds(420));
        assertThat(options.nvidiaSmi()).isEmpty();
        assertThat(options.mode()).isEqualTo("real GPU");
    }

    @Test
    void everyBadFlagIsOneLineNamingItsValue() {
        assertThatThrownBy(() -> GpuCheckOptions.parse(List.of("--root=" + dir.resolve("missing"), "--out=" + dir,
                "--work=" + dir, "--steps=nvml,plugn", "--timeout=5", "--nvidia-smi=" + dir.resolve("smi"), "--colour=red")))
                .isInstanceOfSatisfying(GpuCheckOptions.OptionsException.class, e -> {
                    assertThat(e.problems()).hasSize(5);
                    assertThat(e.problems().getFirst()).startsWith("--colour was 'red' but it is not a gpu-check flag (known: ");
                    assertThat(e.problems().subList(1, 5)).containsExactly(
                            "--root was '" + dir.resolve("missing") + "' but it must be an existing folder",
                            "--nvidia-smi was '" + dir.resolve("smi") + "' but it must be an executable file or 'none'",
                            "--steps was 'nvml,plugn' but 'plugn' is none of nvml, plugin, discovery, exporter, validator, cost, all",
                            "--timeout was '5' but it must be a whole number of seconds from 10 to 3600");
                });
    }

    @Test
    void stepsMayBeChosen() {
        GpuCheckOptions options = GpuCheckOptions.parse(List.of("--root=" + dir, "--out=" + dir, "--work=" + dir,
                "--steps=nvml,exporter,cost"));
        assertThat(options.steps()).containsExactlyInAnyOrder(GpuCheckOptions.Step.EXPORTER, GpuCheckOptions.Step.COST);
    }
}
