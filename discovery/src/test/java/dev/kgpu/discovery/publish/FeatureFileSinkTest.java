package dev.kgpu.discovery.publish;

import dev.kgpu.discovery.labels.Labels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FeatureFileSinkTest {

    @TempDir
    Path folder;

    static Labels labels(String timestamp, String product) {
        return Labels.of(Map.of(Labels.TIMESTAMP, timestamp, "nvidia.com/gpu.product", product, "nvidia.com/gpu.count", "1"));
    }

    @Test
    void writesGfdsFeatureFileWithMode0644AndNoLeftovers() throws Exception {
        Path file = Files.createDirectory(folder.resolve("features.d")).resolve("gfd");
        FeatureFileSink sink = new FeatureFileSink(file, true);

        assertThat(sink.publish(labels("1700000000", "Tesla-T4"))).isEqualTo(LabelSink.Outcome.WROTE);

        assertThat(Files.readString(file)).isEqualTo("""
                nvidia.com/gfd.timestamp=1700000000
                nvidia.com/gpu.count=1
                nvidia.com/gpu.product=Tesla-T4
                """);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-r--r--");
        try (var entries = Files.list(file.getParent())) {
            assertThat(entries).containsExactly(file);
        }
    }

    @Test
    void anUnchangedPassLeavesTheFileAlone() throws Exception {
        Path file = folder.resolve("gfd");
        FeatureFileSink sink = new FeatureFileSink(file, true);
        sink.publish(labels("1700000000", "Tesla-T4"));
        Files.setLastModifiedTime(file, FileTime.fromMillis(0));

        assertThat(sink.publish(labels("1700000060", "Tesla-T4"))).isEqualTo(LabelSink.Outcome.UNCHANGED);
        assertThat(Files.getLastModifiedTime(file).toMillis()).isZero();

        assertThat(sink.publish(labels("1700000120", "NVIDIA-A100"))).isEqualTo(LabelSink.Outcome.WROTE);
        assertThat(Files.readString(file)).contains("nvidia.com/gpu.product=NVIDIA-A100", "gfd.timestamp=1700000120");
    }

    @Test
    void closeRemovesTheFileOnlyWhenAsked() throws Exception {
        Path kept = folder.resolve("kept");
        Path removed = folder.resolve("removed");
        FeatureFileSink keeping = new FeatureFileSink(kept, false);
        FeatureFileSink removing = new FeatureFileSink(removed, true);
        keeping.publish(labels("1", "A"));
        removing.publish(labels("1", "A"));

        keeping.close();
        removing.close();

        assertThat(kept).exists();
        assertThat(removed).doesNotExist();
    }

    @Test
    void aMissingFolderIsNotCreatedButFailsThePassWithOneLine() {
        Path file = folder.resolve("etc/kubernetes/node-feature-discovery/features.d/gfd");
        FeatureFileSink sink = new FeatureFileSink(file, true);

        assertThatThrownBy(() -> sink.publish(labels("1", "B")))
                .isInstanceOf(PublishException.FileFailed.class)
                .hasMessage("feature file " + file + ": its folder " + file.getParent() + " does not exist; discovery"
                        + " creates no folders (it runs as root): create it, or mount NFD's features.d there");
        assertThat(folder.resolve("etc")).doesNotExist();
    }

    @Test
    void aPathThatIsNoRegularFileIsNeverReplaced() throws Exception {
        Path taken = Files.createDirectory(folder.resolve("gfd"));
        FeatureFileSink sink = new FeatureFileSink(taken, true);

        assertThatThrownBy(() -> sink.publish(labels("1", "B")))
                .isInstanceOf(PublishException.FileFailed.class)
                .hasMessageContaining("is not a regular file");
        assertThat(taken).isDirectory();
    }

    @Test
    void aFolderThatIsAFileFailsThePass() throws Exception {
        Path blocker = Files.writeString(folder.resolve("features.d"), "not a folder");
        FeatureFileSink sink = new FeatureFileSink(blocker.resolve("gfd"), true);

        assertThatThrownBy(() -> sink.publish(labels("1", "B")))
                .isInstanceOf(PublishException.FileFailed.class)
                .hasMessageContaining("feature file " + blocker.resolve("gfd"));
        assertThat(Files.readString(blocker)).isEqualTo("not a folder");
    }
}
