package dev.kgpu.benchmarks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class KgpuImagesTest {

    @TempDir
    Path dir;

    @Test
    void theValidatorsDriverOneShotRunsOnlyWhenTheImagesIncludeTheValidators() throws IOException {
        for (String agent : new String[]{"plugin", "discovery", "exporter"}) {
            rootfs(agent);
        }
        KgpuImages withoutValidator = KgpuImages.inRootfs(dir, dir, KgpuImages.Variant.NONE);
        assertThat(Arrays.stream(Role.values()).filter(withoutValidator::runs))
                .containsExactly(Role.PLUGIN, Role.DISCOVERY_ONESHOT, Role.DISCOVERY_DAEMON, Role.EXPORTER);

        rootfs("validator");
        KgpuImages withValidator = KgpuImages.inRootfs(dir, dir, KgpuImages.Variant.NONE);
        assertThat(Arrays.stream(Role.values()).filter(withValidator::runs)).containsExactly(Role.values());
        assertThat(withValidator.files(Role.VALIDATOR_DRIVER)).containsExactly(dir.resolve("validator/rootfs/opt/kgpu/validator"));
    }

    /** What build-images leaves of an agent's image before its AOT cache: its root filesystem and its OCI config. */
    private void rootfs(String agent) throws IOException {
        Path executable = dir.resolve(agent).resolve("rootfs/opt/kgpu").resolve(agent);
        Files.createDirectories(executable.getParent());
        Files.writeString(executable, agent);
        Files.writeString(dir.resolve(agent).resolve("image-config.json"), """
                {"config": {"Entrypoint": ["/opt/kgpu/%s"], "User": "65532:65532", "WorkingDir": "/"}}
                """.formatted(agent));
    }
}
