package dev.kgpu.nvml;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class NvmlOptionsTest {

    @Test
    void readsLibraryAndDriverRootFromTheEnvironment() {
        Map<String, String> environment = Map.of(
                "KGPU_NVML_LIBRARY", "/opt/mock/libnvidia-ml.so.1",
                "NVIDIA_DRIVER_ROOT", "/run/nvidia/driver");

        NvmlOptions options = NvmlOptions.fromEnvironment(environment::get);

        assertThat(options.library()).contains(Path.of("/opt/mock/libnvidia-ml.so.1"));
        assertThat(options.driverRoot()).isEqualTo(Path.of("/run/nvidia/driver"));
    }

    @Test
    void defaultsToTheHostDriverWhenNothingIsSet() {
        NvmlOptions options = NvmlOptions.fromEnvironment(Map.<String, String>of()::get);

        assertThat(options).isEqualTo(NvmlOptions.defaults());
        assertThat(options.library()).isEmpty();
        assertThat(options.driverRoot()).isEqualTo(Path.of("/"));
    }

    @Test
    void blankValuesCountAsUnset() {
        Map<String, String> environment = Map.of("KGPU_NVML_LIBRARY", "  ", "NVIDIA_DRIVER_ROOT", "");

        assertThat(NvmlOptions.fromEnvironment(environment::get)).isEqualTo(NvmlOptions.defaults());
    }

    @Test
    void rejectsNullComponentsNamingTheField() {
        assertThatIllegalArgumentException().isThrownBy(() -> new NvmlOptions(null, Path.of("/")))
                .withMessageStartingWith("library was 'null'");
        assertThatIllegalArgumentException().isThrownBy(() -> new NvmlOptions(Optional.empty(), null))
                .withMessageStartingWith("driverRoot was 'null'");
    }
}
