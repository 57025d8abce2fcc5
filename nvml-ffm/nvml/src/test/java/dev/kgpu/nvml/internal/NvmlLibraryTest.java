package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.NvmlOptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class NvmlLibraryTest {

    @Test
    void explicitLibraryComesFirstThenDriverRootFoldersThenTheSystemLoader() {
        NvmlOptions options = new NvmlOptions(Optional.of(Path.of("/opt/nvml/libnvidia-ml.so.1")), Path.of("/run/nvidia/driver"));

        List<Path> candidates = NvmlLibrary.candidates(options);

        assertThat(candidates.getFirst()).isEqualTo(Path.of("/opt/nvml/libnvidia-ml.so.1"));
        assertThat(candidates.subList(1, 1 + NvmlOptions.LIBRARY_FOLDERS.size()))
                .containsExactlyElementsOf(NvmlOptions.LIBRARY_FOLDERS.stream()
                        .map(folder -> Path.of("/run/nvidia/driver", folder, "libnvidia-ml.so.1")).toList());
        assertThat(candidates.getLast()).isEqualTo(Path.of("libnvidia-ml.so.1"));
        assertThat(candidates).hasSize(NvmlOptions.LIBRARY_FOLDERS.size() + 2);
    }

    @Test
    void withoutAnExplicitLibraryTheSearchStartsUnderTheDriverRoot() {
        List<Path> candidates = NvmlLibrary.candidates(NvmlOptions.defaults());

        assertThat(candidates.getFirst()).isEqualTo(Path.of("/usr/lib64/libnvidia-ml.so.1"));
        assertThat(candidates).contains(Path.of("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"));
        assertThat(candidates.getLast()).isEqualTo(Path.of("libnvidia-ml.so.1"));
    }
}
