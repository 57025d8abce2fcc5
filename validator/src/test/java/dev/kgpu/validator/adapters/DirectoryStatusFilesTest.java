package dev.kgpu.validator.adapters;

import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.DriverRoots;
import dev.kgpu.validator.core.DriverSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DirectoryStatusFilesTest {

    @TempDir
    Path dir;

    @Test
    void writesAtomicallyAndLeavesNoTemporaryFiles() throws Exception {
        DirectoryStatusFiles files = new DirectoryStatusFiles(dir.resolve("validations"));

        files.write(Component.TOOLKIT, List.of());
        files.write(Component.DRIVER, List.of("A=1", "B=2"));
        files.write(Component.DRIVER, List.of("A=3"));

        assertThat(Files.readString(dir.resolve("validations/driver-ready"))).isEqualTo("A=3\n");
        assertThat(Files.size(dir.resolve("validations/toolkit-ready"))).isZero();
        try (var listing = Files.list(dir.resolve("validations"))) {
            assertThat(listing.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("driver-ready", "toolkit-ready");
        }
    }

    @Test
    void removeAllTakesOnlyReadyFiles() throws Exception {
        DirectoryStatusFiles files = new DirectoryStatusFiles(dir);
        files.write(Component.DRIVER, List.of());
        files.write(Component.CUDA, List.of());
        Files.writeString(dir.resolve(".driver-ctr-ready"), "x");
        Files.writeString(dir.resolve("workload-type"), "container");

        files.removeAllReadyFiles();
        files.remove(Component.PLUGIN);

        try (var listing = Files.list(dir)) {
            assertThat(listing.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(".driver-ctr-ready", "workload-type");
        }
    }

    @Test
    void driverReadyIsShellSourceable() throws Exception {
        DirectoryStatusFiles files = new DirectoryStatusFiles(dir);
        DriverRoots roots = new DriverRoots("/run/nvidia/driver", "/run/nvidia/driver", "/", "/host dev");
        files.write(Component.DRIVER, roots.statusLines(new DriverSnapshot("550.54.15", "12.4", "/lib", List.of())));

        assertThat(Files.readAllLines(dir.resolve("driver-ready"))).containsExactly(
                "IS_HOST_DRIVER=false",
                "NVIDIA_DRIVER_ROOT=/run/nvidia/driver",
                "DRIVER_ROOT_CTR_PATH=/run/nvidia/driver",
                "NVIDIA_DEV_ROOT=/",
                "DEV_ROOT_CTR_PATH='/host dev'",
                "DRIVER_VERSION=550.54.15",
                "CUDA_DRIVER_VERSION=12.4");
        // What NVIDIA's operands do with it: set -o allexport; . driver-ready
        Process sh = new ProcessBuilder("sh", "-c", "set -o allexport; . \"$0\"; printf '%s|%s|%s' "
                + "\"$DEV_ROOT_CTR_PATH\" \"$IS_HOST_DRIVER\" \"$DRIVER_VERSION\"", dir.resolve("driver-ready").toString())
                .redirectErrorStream(true).start();
        assertThat(new String(sh.getInputStream().readAllBytes())).isEqualTo("/host dev|false|550.54.15");
        assertThat(sh.waitFor()).isZero();
    }
}
