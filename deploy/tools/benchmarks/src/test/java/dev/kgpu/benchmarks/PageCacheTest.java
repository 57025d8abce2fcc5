package dev.kgpu.benchmarks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PageCacheTest {

    @TempDir
    Path dir;

    @Test
    void unpackingWritesTheFileAnewWithItsBytesModeAndTime() throws IOException {
        Path executable = dir.resolve("plugin");
        byte[] content = new byte[3 * PageCache.UNPACK_WRITE_SIZE + 1234];
        new Random(20).nextBytes(content);
        Files.write(executable, content);
        Files.setPosixFilePermissions(executable, PosixFilePermissions.fromString("r-xr-x---"));
        FileTime modified = FileTime.fromMillis(1_700_000_000_000L);
        Files.setLastModifiedTime(executable, modified);
        Object inodeBefore = Files.getAttribute(executable, "unix:ino");

        PageCache.UNPACKED.prepare(PageCache.filesUnder(dir));

        assertThat(Files.readAllBytes(executable)).isEqualTo(content);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(executable))).isEqualTo("r-xr-x---");
        assertThat(Files.getLastModifiedTime(executable)).isEqualTo(modified);
        assertThat(Files.getAttribute(executable, "unix:ino")).as("a new file, so none of the old one's cached pages")
                .isNotEqualTo(inodeBefore);
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(executable);
        }
    }

    @Test
    void anEmptyFileStaysEmpty() throws IOException {
        Path empty = Files.createFile(dir.resolve("empty"));

        PageCache.UNPACKED.prepare(PageCache.filesUnder(dir));

        assertThat(Files.size(empty)).isZero();
    }

    @Test
    void aFileThatCannotBeWrittenAnewIsNamedAndNothingIsLeftBeside() throws IOException {
        Path missing = dir.resolve("gone");

        assertThatThrownBy(() -> PageCache.unpack(missing))
                .isInstanceOf(BenchmarkException.class)
                .hasMessageStartingWith("could not write " + missing + " anew as an image's unpacking does: ");
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }
}
