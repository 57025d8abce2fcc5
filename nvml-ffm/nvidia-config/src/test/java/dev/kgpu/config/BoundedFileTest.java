package dev.kgpu.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BoundedFileTest {

    @TempDir
    Path dir;

    @Test
    void readsAFileUpToTheLimit() throws IOException {
        Path file = Files.writeString(dir.resolve("ok.txt"), "héllo", StandardCharsets.UTF_8);

        assertThat(BoundedFile.readText(file, 6, "F")).isEqualTo("héllo");
        assertThat(BoundedFile.readBytes(file, 6, "F")).hasSize(6);
    }

    @Test
    void stopsReadingOneBytePastTheLimitWhateverTheSizeStatReports() {
        // /dev/zero reports size 0 and never ends; /proc files report 0 and hold more
        assertThatThrownBy(() -> BoundedFile.readText(Path.of("/dev/zero"), 1 << 20, "CONFIG_FILE"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("invalid configuration: CONFIG_FILE was '/dev/zero' but it must name a file of at most"
                        + " 1048576 bytes (1 MiB); reading stopped there");
        assertThat(BoundedFile.readText(Path.of("/proc/self/status"), 1 << 20, "F")).contains("Pid:");
    }

    @Test
    void namesTheSettingWhenTheFileIsMissingADirectoryOrNotText() throws IOException {
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> BoundedFile.readText(missing, 10, "--config-file"))
                .hasMessage("invalid configuration: --config-file was '" + missing + "' but it must name a readable"
                        + " file (NoSuchFileException: " + missing + ")");
        assertThatThrownBy(() -> BoundedFile.readText(dir, 10, "F"))
                .hasMessageStartingWith("invalid configuration: F was '" + dir + "' but it must name a readable file (");
        Path binary = Files.write(dir.resolve("binary"), new byte[] {(byte) 0xff, (byte) 0xfe, 0});
        assertThatThrownBy(() -> BoundedFile.readText(binary, 10, "F"))
                .hasMessage("invalid configuration: F was '" + binary + "' but it must name a UTF-8 text file");
    }
}
