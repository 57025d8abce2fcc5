package dev.kgpu.images;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A second build of the same sources, from the same Debian packages and JDK, gives the same layers: every
 * layer but the AOT cache (recorded from a real run, so never the same twice) has the same digest. The rebuild
 * skips the training ({@code --no-aot}), which is all it would change. Native images have no AOT cache: every
 * layer is the same.
 */
class ReproducibleLayersIT {

    @Test
    void aRebuildGivesTheSameLayersButTheAotCache() throws Exception {
        Path again = Files.createTempDirectory("kgpu-images-again");
        try {
            List<String> command = new ArrayList<>(List.of(Images.root().resolve("deploy/release/images/build-images").toString(),
                    "--" + Images.flavour(), "--packaged", "--no-aot", "--output", again.toString()));
            command.addAll(Images.built());
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(again.resolve("build.log").toFile());
            builder.environment().put("KGPU_IMAGE_DEBS", Images.output().resolve("debs").toString());
            builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
            Process build = builder.start();
            assertThat(build.waitFor(15, TimeUnit.MINUTES)).isTrue();
            assertThat(build.exitValue()).as("build-images --no-aot; it printed:%n%s",
                    Files.readString(again.resolve("build.log"), StandardCharsets.UTF_8)).isZero();

            ImageLayout first = Images.layout();
            ImageLayout second = ImageLayout.read(again.resolve("oci"));
            for (String agent : Images.built()) {
                List<String> layers = first.image(agent, Images.version()).layerDigests();
                assertThat(second.image(agent, Images.version()).layerDigests())
                        .as("%s's layers below its AOT cache", agent)
                        .isEqualTo(Images.nativeImages() ? layers : layers.subList(0, layers.size() - 1));
            }
        } finally {
            ImageContainer.delete(again);
        }
    }
}
