package dev.kgpu.cdi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** {@link DurableFiles}: whole files replaced through a synced temporary file, nothing left behind on failure. */
class DurableFilesTest {

    @TempDir
    Path dir;

    @Test
    void aFileIsReplacedWholeWithItsPermissionsAndNoTemporaryFileIsLeft() throws IOException {
        Path target = dir.resolve("state.json");
        Files.writeString(target, "old");

        DurableFiles.replace(target, "new".getBytes(StandardCharsets.UTF_8), "state.", PosixFilePermissions.fromString("rw-r--r--"));

        assertThat(target).hasContent("new");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).isEqualTo("rw-r--r--");
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(target);
        }
    }

    @Test
    void withoutDiskWaitsAFileIsStillReplacedWholeAndNoTemporaryFileIsLeft() throws IOException {
        Path target = dir.resolve("state.json");
        Files.writeString(target, "old");

        DurableFiles.replace(target, "new".getBytes(StandardCharsets.UTF_8), "state.", Set.of(),
                DurableFiles.Survives.PROCESS_CRASH);

        assertThat(target).hasContent("new");
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(target);
        }
        Path directory = Files.createDirectories(dir.resolve("a-folder"));
        assertThatExceptionOfType(IOException.class).isThrownBy(() -> DurableFiles.replace(directory, new byte[]{1}, "state.",
                Set.of(), DurableFiles.Survives.PROCESS_CRASH));
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactlyInAnyOrder(target, directory);
        }
    }

    @Test
    void aFailedRenameLeavesTheTargetAndNoTemporaryFile() throws IOException {
        Path target = Files.createDirectories(dir.resolve("state.json"));
        Files.writeString(target.resolve("inside"), "kept");

        assertThatExceptionOfType(IOException.class)
                .isThrownBy(() -> DurableFiles.replace(target, new byte[]{1}, "state.", Set.of()));

        assertThat(target.resolve("inside")).hasContent("kept");
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(target);
        }
    }

    @Test
    void aFolderThatIsNotThereCannotBeSynced() {
        assertThatExceptionOfType(IOException.class).isThrownBy(() -> DurableFiles.syncFolder(dir.resolve("missing")));
    }
}
