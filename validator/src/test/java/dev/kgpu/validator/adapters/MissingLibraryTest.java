package dev.kgpu.validator.adapters;

import dev.kgpu.nvml.NvmlOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * With no KGPU_NVML_LIBRARY and a driver root that holds no library, the driver component fails with one
 * line naming every path tried. Runs in a fresh JVM: this test JVM has already loaded the mock, and a
 * process keeps the first libnvidia-ml.so.1 it loads.
 */
class MissingLibraryTest {

    @TempDir
    Path driverRoot;

    @Test
    void aMissingLibraryNamesEveryPathTried() throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"),
                MissingLibraryProbe.class.getName(), driverRoot.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("KGPU_NVML_LIBRARY");
        builder.environment().remove("NVIDIA_DRIVER_ROOT");
        Process process = builder.start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the probe JVM finished").isTrue();
        String output = new String(process.getInputStream().readAllBytes()).strip();
        assumeFalse(output.equals("PASSED"), "this machine has a real libnvidia-ml.so.1 on the loader path");

        List<String> tried = new ArrayList<>();
        NvmlOptions.LIBRARY_FOLDERS.forEach(folder -> tried.add(driverRoot.resolve(folder).resolve("libnvidia-ml.so.1").toString()));
        tried.add("libnvidia-ml.so.1");
        assertThat(output.lines().toList()).last().isEqualTo("driver: could not load libnvidia-ml.so.1; tried "
                + String.join(", ", tried)
                + " (set KGPU_NVML_LIBRARY to the library file, or NVIDIA_DRIVER_ROOT to the driver root)");
    }
}
