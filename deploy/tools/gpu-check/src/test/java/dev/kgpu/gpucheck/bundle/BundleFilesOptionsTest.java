package dev.kgpu.gpucheck.bundle;

import dev.kgpu.agent.Startup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The bundle script's call, {@code BundleFiles --stage=<folder>}, read by the agents' shared loader. */
class BundleFilesOptionsTest {

    @TempDir
    Path stage;

    @Test
    void theStagedFolder() {
        assertThat(BundleFiles.stage(new String[] {"--stage=" + stage})).isEqualTo(new Startup.Run<>(stage));
    }

    @Test
    void aMissingFolderIsOneLineNamingIt() {
        assertThat(BundleFiles.stage(new String[] {"--stage=" + stage.resolve("missing")}))
                .isInstanceOfSatisfying(Startup.Exit.class, exit -> assertThat(exit.stderr()).isEqualTo(
                        "bundle-files: invalid configuration: --stage was '" + stage.resolve("missing")
                                + "' but it must be the staged bundle folder"));
    }
}
