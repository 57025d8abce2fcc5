package dev.kgpu.nvml;

import dev.kgpu.nvml.mock.Json;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.probe.LibraryProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/** NVML's failures as kgpu's typed exceptions, and NOT_SUPPORTED as missing values. */
class NvmlErrorsTest {

    @AfterEach
    void resetMock() {
        MockNode.MOCK.reset();
    }

    @Test
    void aMissingLibraryNamesEveryPathTried(@TempDir Path driverRoot) throws Exception {
        // one candidate exists but is no shared library; the others do not exist at all
        Files.createDirectories(driverRoot.resolve("usr/lib64"));
        Files.writeString(driverRoot.resolve("usr/lib64/libnvidia-ml.so.1"), "not an ELF file");
        ProcessBuilder builder = new ProcessBuilder(
                ProcessHandle.current().info().command().orElseThrow(), "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), LibraryProbe.class.getName(), driverRoot.toString());
        builder.environment().remove("KGPU_NVML_LIBRARY");
        builder.environment().remove("LD_LIBRARY_PATH");
        builder.redirectErrorStream(true);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(process.exitValue()).as(output).isEqualTo(3);
        List<String> expected = new ArrayList<>();
        for (String folder : NvmlOptions.LIBRARY_FOLDERS) {
            expected.add("tried " + driverRoot.resolve(folder).resolve(NvmlOptions.LIBRARY_NAME));
        }
        expected.add("tried libnvidia-ml.so.1");
        assertThat(output.lines().filter(line -> line.startsWith("tried "))).containsExactlyElementsOf(expected);
        assertThat(output).contains("message could not load libnvidia-ml.so.1; tried " + driverRoot.resolve("usr/lib64/libnvidia-ml.so.1"))
                .contains("set KGPU_NVML_LIBRARY");
    }

    @Test
    void anExplicitLibraryThatIsNotThereIsNamed(@TempDir Path dir) {
        Path missing = dir.resolve("libnvidia-ml.so.1");

        assertThatExceptionOfType(NvmlException.LibraryNotFound.class)
                .isThrownBy(() -> Nvml.open(NvmlOptions.ofLibrary(missing)))
                .satisfies(e -> assertThat(e.tried()).containsExactly(missing.toString()))
                .withMessageContaining(missing.toString());
    }

    @Test
    void callsAfterCloseFailAsUninitialized() {
        Nvml nvml = MockNode.open("dgx-a100");
        GpuDevice gpu = nvml.device(0);
        nvml.close();

        assertThatExceptionOfType(NvmlException.Uninitialized.class).isThrownBy(nvml::deviceCount)
                .withMessage("nvmlDeviceGetCount_v2: Uninitialized (NVML_ERROR_UNINITIALIZED)");
        assertThatExceptionOfType(NvmlException.Uninitialized.class).isThrownBy(gpu::telemetry)
                .satisfies(e -> assertThat(e.function()).isEqualTo("nvmlDeviceGetTemperature"));
        assertThatExceptionOfType(NvmlException.Uninitialized.class).isThrownBy(nvml::devices);
        assertThatNoException().as("close is idempotent").isThrownBy(nvml::close);
    }

    @Test
    void initialisationIsReferenceCounted() {
        Nvml first = MockNode.open("dgx-a100");
        Nvml second = Nvml.open();
        first.close();

        assertThat(second.deviceCount()).as("NVML still initialised for the second").isEqualTo(8);
        assertThat(second.device(3).telemetry().gpuTemperatureCelsius()).isPresent();
        assertThatExceptionOfType(NvmlException.Uninitialized.class).isThrownBy(first::deviceCount);
        first.close();
        assertThat(second.deviceCount()).as("closing twice shut NVML down once").isEqualTo(8);
        second.close();
        try (Nvml third = Nvml.open()) {
            assertThat(third.deviceCount()).isEqualTo(8);
        }
    }

    @Test
    void anInvalidArgumentCarriesNvmlsTextAndFunction() {
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            MockNode.MOCK.failNext("nvmlDeviceGetUUID", NvmlReturnCode.ERROR_INVALID_ARGUMENT, 1);

            assertThatExceptionOfType(NvmlException.InvalidArgument.class).isThrownBy(nvml::devices)
                    .withMessage("nvmlDeviceGetUUID: Invalid Argument (NVML_ERROR_INVALID_ARGUMENT)")
                    .satisfies(e -> {
                        assertThat(e.function()).isEqualTo("nvmlDeviceGetUUID");
                        assertThat(e.code()).isEqualTo(NvmlReturnCode.ERROR_INVALID_ARGUMENT);
                    });
            assertThat(nvml.devices()).as("the failure was one call only").hasSize(8);
        }
    }

    @Test
    void aLostGpuIsGpuLost() {
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            GpuDevice gpu = nvml.device(2);
            MockNode.MOCK.failNext("nvmlDeviceGetTemperature", NvmlReturnCode.ERROR_GPU_IS_LOST, 1);

            assertThatExceptionOfType(NvmlException.GpuLost.class).isThrownBy(gpu::telemetry)
                    .withMessageStartingWith("nvmlDeviceGetTemperature: ")
                    .withMessageEndingWith("(NVML_ERROR_GPU_IS_LOST)");
            assertThat(gpu.telemetry().gpuTemperatureCelsius()).isPresent();
        }
    }

    @Test
    void aGpuMarkedLostInTheRunningProfileFallsOffTheBus(@TempDir Path dir) throws IOException {
        Path profile = dir.resolve("node.json");
        Map<String, Object> root = Json.mutableCopy(MockNvml.profile("dgx-a100").root());
        Files.writeString(profile, Json.write(root));
        MockNode.MOCK.useProfile(profile.toString());
        try (Nvml nvml = Nvml.open()) {
            GpuDevice gpu = nvml.device(1);
            assertThat(gpu.telemetry().gpuTemperatureCelsius()).isPresent();

            @SuppressWarnings("unchecked") Map<String, Object> second =
                    (Map<String, Object>) ((List<Object>) root.get("gpus")).get(1);
            second.put("lost", true);
            Files.writeString(profile.resolveSibling("node.json.tmp"), Json.write(root));
            Files.move(profile.resolveSibling("node.json.tmp"), profile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);

            NvmlException failure = awaitFailure(Duration.ofSeconds(5), gpu::telemetry);
            assertThat(failure).isInstanceOf(NvmlException.GpuLost.class);
            assertThat(nvml.device(0).telemetry().gpuTemperatureCelsius()).as("the other GPUs still answer").isPresent();
        }
    }

    @Test
    void aDriverThatIsNotLoadedFailsOpen() {
        MockNode.MOCK.failNext("nvmlInit_v2", NvmlReturnCode.ERROR_DRIVER_NOT_LOADED, 1);

        assertThatExceptionOfType(NvmlException.DriverNotLoaded.class).isThrownBy(Nvml::open)
                .withMessageStartingWith("nvmlInit_v2: ")
                .withMessageEndingWith("(NVML_ERROR_DRIVER_NOT_LOADED)");
        try (Nvml nvml = Nvml.open()) {
            assertThat(nvml.deviceCount()).isPositive();
        }
    }

    @Test
    void notSupportedIsAnEmptyValueNotAnError() {
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            GpuDevice gpu = nvml.device(0);
            MockNode.MOCK.failNext("nvmlDeviceGetPowerUsage", NvmlReturnCode.ERROR_NOT_SUPPORTED, 1);

            GpuTelemetry telemetry = gpu.telemetry();

            assertThat(telemetry.powerMilliwatts()).isEmpty();
            assertThat(telemetry.gpuTemperatureCelsius()).isPresent();
            assertThat(gpu.telemetry().powerMilliwatts()).isPresent();
        }
    }

    @Test
    void anUnknownIndexIsAnInvalidArgument() {
        try (Nvml nvml = MockNode.open("rtx3060")) {
            assertThatExceptionOfType(NvmlException.InvalidArgument.class).isThrownBy(() -> nvml.device(1))
                    .satisfies(e -> assertThat(e.function()).isEqualTo("nvmlDeviceGetHandleByIndex_v2"));
            assertThat(nvml.deviceByUuid("GPU-00000000-0000-0000-0000-000000000000")).isEmpty();
            assertThat(nvml.deviceByPciBusId("0000:99:00.0")).isEmpty();
        }
    }

    /** Calls {@code call} until it throws an NvmlException, for at most {@code timeout}. */
    private static NvmlException awaitFailure(Duration timeout, Supplier<?> call) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                call.get();
            } catch (NvmlException e) {
                return e;
            }
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
        throw new AssertionError("no NVML failure within " + timeout);
    }
}
