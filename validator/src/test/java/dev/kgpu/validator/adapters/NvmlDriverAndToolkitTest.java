package dev.kgpu.validator.adapters;

import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.nvml.NvmlReturnCode;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;
import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.ComponentFailure;
import dev.kgpu.validator.core.DriverRoots;
import dev.kgpu.validator.core.DriverSnapshot;
import dev.kgpu.validator.core.DriverValidator;
import dev.kgpu.validator.core.Evidence;
import dev.kgpu.validator.core.Layer;
import dev.kgpu.validator.core.ToolkitValidator;
import dev.kgpu.validator.core.ValidationPass;
import dev.kgpu.validator.core.Verdict;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The driver and toolkit components through the real FFM path against the mock libnvidia-ml.so.1, for every
 * shipped profile, and NVML's failure modes.
 */
class NvmlDriverAndToolkitTest {

    private static final MockNvml MOCK = MockNvml.load();
    private static final DriverRoots ROOTS = new DriverRoots("/", "/host", "/", "/host");

    @TempDir
    Path devRoot;

    private final NvmlGpuDriver driver = new NvmlGpuDriver(NvmlOptions.ofLibrary(MOCK.library()));

    @AfterEach
    void resetMock() {
        MOCK.reset();
    }

    @SuppressWarnings("unchecked")
    private static List<String> migUuids(Map<String, Object> gpu) {
        Object mig = MockProfile.value(gpu, "mig").orElse(null);
        if (!(mig instanceof Map<?, ?> m) || !"enabled".equals(m.get("mode")) || m.get("devices") == null) {
            return List.of();
        }
        return ((List<Map<String, Object>>) m.get("devices")).stream().map(d -> (String) d.get("uuid")).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"rtx3060", "dgx-a100", "dgx-h100", "mig-mixed", "large-256"})
    void driverValidatesEveryProfileAndWritesItsVersions(String name) {
        MOCK.useProfile(name);
        MockProfile profile = MockNvml.profile(name);

        DriverSnapshot snapshot = driver.probe();
        Evidence evidence = new DriverValidator(driver, ROOTS).validate();

        List<Map<String, Object>> gpus = profile.gpus();
        assertThat(snapshot.gpus()).extracting(DriverSnapshot.Gpu::uuid)
                .containsExactlyElementsOf(gpus.stream().map(g -> MockProfile.string(g, "uuid")).toList());
        assertThat(snapshot.gpus()).extracting(DriverSnapshot.Gpu::minorNumber)
                .containsExactlyElementsOf(gpus.stream().map(g -> MockProfile.number(g, "minorNumber").intValue()).toList());
        assertThat(snapshot.gpus()).extracting(DriverSnapshot.Gpu::memoryTotalBytes)
                .containsExactlyElementsOf(gpus.stream().map(g -> MockProfile.number(g, "memory.totalBytes").longValue()).toList());
        for (int i = 0; i < gpus.size(); i++) {
            assertThat(snapshot.gpus().get(i).migUuids()).as("MIG devices of GPU %d", i)
                    .containsExactlyInAnyOrderElementsOf(migUuids(gpus.get(i)));
        }
        if (name.equals("mig-mixed")) {
            assertThat(snapshot.gpus().stream().mapToInt(g -> g.migUuids().size()).sum()).isPositive();
        }
        String version = (String) profile.system("driverVersion");
        int cuda = ((BigDecimal) profile.system("cudaDriverVersion")).intValue();
        assertThat(evidence.summary()).startsWith("driver " + version + ", CUDA " + cuda / 1000 + "." + cuda % 1000 / 10
                + ", " + gpus.size() + " GPU" + (gpus.size() == 1 ? "" : "s") + " answered ("
                + MockProfile.string(gpus.getFirst(), "name") + ", ");
        assertThat(evidence.statusLines()).containsExactly("IS_HOST_DRIVER=true", "NVIDIA_DRIVER_ROOT=/",
                "DRIVER_ROOT_CTR_PATH=/host", "NVIDIA_DEV_ROOT=/", "DEV_ROOT_CTR_PATH=/host",
                "DRIVER_VERSION=" + version, "CUDA_DRIVER_VERSION=" + cuda / 1000 + "." + cuda % 1000 / 10);
    }

    @ParameterizedTest
    @ValueSource(strings = {"rtx3060", "dgx-a100", "dgx-h100", "mig-mixed", "large-256"})
    void toolkitFindsADeviceNodePerGpuMinorNumberAndACdiSpecNamingEveryGpu(String name) throws Exception {
        MOCK.useProfile(name);
        List<Map<String, Object>> gpus = MockNvml.profile(name).gpus();
        Files.createDirectories(devRoot.resolve("dev"));
        List<String> nodes = new ArrayList<>(List.of("nvidiactl", "nvidia-uvm"));
        gpus.forEach(g -> nodes.add("nvidia" + MockProfile.number(g, "minorNumber").intValue()));
        for (String node : nodes) {
            Files.writeString(devRoot.resolve("dev").resolve(node), "");
        }
        Path cdi = Files.createDirectories(devRoot.resolve("cdi"));
        Files.writeString(cdi.resolve("nvidia.yaml"), "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n"
                + gpus.stream().map(g -> "- name: " + MockProfile.string(g, "uuid")
                        + "\n  containerEdits: {deviceNodes: [{path: /dev/nvidia" + MockProfile.number(g, "minorNumber").intValue()
                        + "}]}\n").collect(Collectors.joining()));
        ToolkitValidator toolkit = new ToolkitValidator(driver, new FileSystemDeviceNodes(devRoot),
                Optional.of(new CdiSpecDirectory(cdi)), true, dev.kgpu.config.v1.MigStrategy.NONE);

        assertThat(toolkit.validate().summary()).isEqualTo(nodes.size() + " device nodes under " + devRoot
                + "; CDI " + cdi.resolve("nvidia.yaml") + " names all " + gpus.size() + " GPUs");

        String lastGpuNode = nodes.getLast();
        Files.delete(devRoot.resolve("dev").resolve(lastGpuNode));
        assertThatThrownBy(toolkit::validate).isInstanceOfSatisfying(ComponentFailure.class, e -> {
            assertThat(e.layer()).isEqualTo(Layer.RUNTIME);
            assertThat(e.reason()).startsWith("device node dev/" + lastGpuNode + " missing under " + devRoot);
        });
    }

    @Test
    void aMissingLibraryIsOneDriverFailureNamingThePathTried() {
        Path absent = devRoot.resolve("usr/lib64/libnvidia-ml.so.1");
        NvmlGpuDriver missing = new NvmlGpuDriver(NvmlOptions.ofLibrary(absent));

        assertThatThrownBy(() -> new DriverValidator(missing, ROOTS).validate())
                .isInstanceOfSatisfying(ComponentFailure.class, e -> {
                    assertThat(e.layer()).isEqualTo(Layer.DRIVER);
                    assertThat(e.reason()).startsWith("could not load libnvidia-ml.so.1; tried " + absent)
                            .contains("KGPU_NVML_LIBRARY");
                });
    }

    @Test
    void aDriverThatIsNotLoadedIsADriverFailure() {
        MOCK.failNext("nvmlInit_v2", NvmlReturnCode.ERROR_DRIVER_NOT_LOADED, 1);

        assertThatThrownBy(() -> new DriverValidator(driver, ROOTS).validate())
                .isInstanceOfSatisfying(ComponentFailure.class, e -> {
                    assertThat(e.layer()).isEqualTo(Layer.DRIVER);
                    assertThat(e.reason()).startsWith("the NVIDIA kernel driver is not loaded or does not match the"
                            + " library: nvmlInit_v2: ").contains("NVML_ERROR_DRIVER_NOT_LOADED");
                });
    }

    @Test
    void aGpuThatFallsOffTheBusIsNamed() {
        MOCK.useProfile("dgx-a100");
        MOCK.failNext("nvmlDeviceGetMemoryInfo_v2", NvmlReturnCode.ERROR_GPU_IS_LOST, -1);
        MOCK.failNext("nvmlDeviceGetMemoryInfo", NvmlReturnCode.ERROR_GPU_IS_LOST, -1);

        assertThatThrownBy(() -> new DriverValidator(driver, ROOTS).validate())
                .isInstanceOfSatisfying(ComponentFailure.class, e -> {
                    assertThat(e.layer()).isEqualTo(Layer.DRIVER);
                    assertThat(e.reason()).startsWith("GPU 0 did not answer its memory: nvmlDeviceGetMemoryInfo")
                            .contains("NVML_ERROR_GPU_IS_LOST");
                });
    }

    @Test
    void withWaitRetriesTheDriverUntilItLoads() throws Exception {
        MOCK.failNext("nvmlInit_v2", NvmlReturnCode.ERROR_DRIVER_NOT_LOADED, 2);
        List<Duration> slept = new ArrayList<>();
        ValidationPassTestFiles files = new ValidationPassTestFiles(devRoot.resolve("validations"));
        ValidationPass pass = new ValidationPass(List.of(new DriverValidator(driver, ROOTS)), files.files, true,
                Duration.ofSeconds(5), slept::add);

        List<Verdict> verdicts = pass.run(ValidationPass.FilePolicy.REMOVE_FIRST);

        assertThat(verdicts.getFirst().passed()).isTrue();
        assertThat(slept).hasSize(2);
        assertThat(files.files.exists(Component.DRIVER)).isTrue();
    }

    /** Real status files in a temp dir. */
    private record ValidationPassTestFiles(DirectoryStatusFiles files) {
        ValidationPassTestFiles(Path dir) {
            this(new DirectoryStatusFiles(dir));
        }
    }
}
