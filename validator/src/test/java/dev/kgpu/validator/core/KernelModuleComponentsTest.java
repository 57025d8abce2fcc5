package dev.kgpu.validator.core;

import dev.kgpu.validator.ValidationPlan;
import dev.kgpu.validator.adapters.DirectoryStatusFiles;
import dev.kgpu.validator.config.ValidatorSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * gpu-operator's kernel-module components ({@code nvidia-fs}, {@code gdrcopy}, {@code nvidia-peermem},
 * {@code mofed}) through the real plan, pass and adapters, on a fake host root ({@code KGPU_HOST_ROOT}) whose
 * {@code proc/modules} and {@code sys/bus/pci/devices} a test writes.
 */
class KernelModuleComponentsTest {

    @TempDir
    Path dir;

    List<Verdict> run(String components, Map<String, String> more) throws InterruptedException {
        Map<String, String> env = new HashMap<>(Map.of("COMPONENT", components, "KGPU_HOST_ROOT", dir.resolve("host").toString(),
                "OUTPUT_DIR", dir.resolve("validations").toString()));
        env.putAll(more);
        ValidatorSettings settings = ValidatorSettings.load(new String[0], env::get);
        GpuDriver noDriver = () -> {
            throw new IllegalStateException("not asked for");
        };
        return ValidationPlan.build(settings, noDriver, () -> {
            throw new IllegalStateException("not asked for");
        }, new DirectoryStatusFiles(settings.outputDir()), Clock.systemUTC(), Sleeper.system())
                .run(ValidationPass.FilePolicy.REMOVE_FIRST);
    }

    void modules(String... names) throws IOException {
        Path modules = Files.createDirectories(dir.resolve("host/proc")).resolve("modules");
        StringBuilder text = new StringBuilder();
        for (String name : names) {
            text.append(name).append(" 65536 2 - Live 0x0000000000000000\n");
        }
        Files.writeString(modules, text);
        Files.createDirectories(dir.resolve("validations"));
    }

    void pci(String busId, int vendor) throws IOException {
        Path function = Files.createDirectories(dir.resolve("host/sys/bus/pci/devices").resolve(busId));
        Files.writeString(function.resolve("vendor"), "0x%04x\n".formatted(vendor));
    }

    boolean ready(String file) {
        return Files.exists(dir.resolve("validations").resolve(file));
    }

    @Test
    void loadedModulesPassAndWriteGpuOperatorsFiles() throws Exception {
        modules("nvidia_peermem", "nvidia_fs", "gdrdrv", "nvidia");

        List<Verdict> verdicts = run("nvidia-fs,gdrcopy,nvidia-peermem", Map.of());

        assertThat(verdicts).extracting(Verdict::line).containsExactly(
                "nvidia-fs PASSED kernel module nvidia_fs is loaded (GPUDirect Storage)",
                "gdrcopy PASSED kernel module gdrdrv is loaded (GDRCopy)",
                "nvidia-peermem PASSED kernel module nvidia_peermem is loaded (GPUDirect RDMA)");
        assertThat(ready("nvidia-fs-ready") && ready("gdrcopy-ready") && ready("nvidia-peermem-ready")).isTrue();
    }

    @Test
    void aMissingModuleFailsNamingIt() throws Exception {
        modules("nvidia", "gdrdrv_helper");

        assertThat(run("gdrcopy", Map.of())).extracting(Verdict::line).containsExactly("gdrcopy FAILED driver: kernel"
                + " module gdrdrv is not loaded (lsmod lists no gdrdrv); GDRCopy needs it: load it, or let the driver"
                + " container load it");
        assertThat(ready("gdrcopy-ready")).isFalse();
    }

    @Test
    void mofedIsSkippedWithoutRdmaOrMellanoxAndCheckedWithThem() throws Exception {
        modules("nvidia");
        assertThat(run("mofed", Map.of())).extracting(Verdict::line)
                .containsExactly("mofed PASSED skipped: GPUDirect RDMA is off (GPU_DIRECT_RDMA_ENABLED is not true)");
        assertThat(ready("mofed-ready")).as("NVIDIA writes no file when it skips").isFalse();

        pci("0000:07:00.0", 0x10de);
        assertThat(run("mofed", Map.of("GPU_DIRECT_RDMA_ENABLED", "true"))).extracting(Verdict::line)
                .containsExactly("mofed PASSED skipped: no Mellanox (15b3) PCI device on this node");

        pci("0000:0c:00.0", 0x15b3);
        assertThat(run("mofed", Map.of("GPU_DIRECT_RDMA_ENABLED", "true"))).extracting(Verdict::line)
                .containsExactly("mofed FAILED driver: the MOFED driver container is not ready:"
                        + " /run/mellanox/drivers/.driver-ready does not exist");
        Files.createDirectories(dir.resolve("host/run/mellanox/drivers"));
        Files.writeString(dir.resolve("host/run/mellanox/drivers/.driver-ready"), "");
        assertThat(run("mofed", Map.of("GPU_DIRECT_RDMA_ENABLED", "true"))).extracting(Verdict::line)
                .containsExactly("mofed PASSED the MOFED driver container is ready (1 Mellanox PCI functions)");
        assertThat(ready("mofed-ready")).isTrue();

        assertThat(run("mofed", Map.of("GPU_DIRECT_RDMA_ENABLED", "true", "USE_HOST_MOFED", "true")))
                .extracting(Verdict::line).containsExactly("mofed FAILED driver: kernel module mlx5_core is not loaded"
                        + " (lsmod lists no mlx5_core) although USE_HOST_MOFED=true says the host installs MOFED");
        modules("mlx5_core", "mlx5_ib");
        assertThat(run("mofed", Map.of("GPU_DIRECT_RDMA_ENABLED", "true", "USE_HOST_MOFED", "true")))
                .extracting(Verdict::line).containsExactly("mofed PASSED kernel module mlx5_core is loaded (host MOFED,"
                        + " 1 Mellanox PCI functions)");
    }

    @Test
    void anUnreadableModuleListFailsNamingTheFile() throws Exception {
        Files.createDirectories(dir.resolve("validations"));
        assertThat(run("nvidia-fs", Map.of())).singleElement().extracting(Verdict::line).asString()
                .startsWith("nvidia-fs FAILED driver: could not read the kernel's module list " + dir.resolve("host/proc/modules"));
    }
}
