package dev.kgpu.gpucheck.bundle;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

class BundleFilesTest {

    @TempDir
    Path dir;

    private Path jar(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
            zip.putNextEntry(entry("META-INF/MANIFEST.MF"));
            zip.write("Manifest-Version: 1.0\nMulti-Release: true\n\n".getBytes(StandardCharsets.UTF_8));
            zip.putNextEntry(entry("a/"));
            zip.putNextEntry(entry("a/B.class"));
            zip.write("class bytes ".repeat(100).getBytes(StandardCharsets.UTF_8));
        }
        return file;
    }

    /** An entry with a fixed time: two jars written a second apart are then the same bytes, as two copies of one library are. */
    private static ZipEntry entry(String name) {
        ZipEntry entry = new ZipEntry(name);
        entry.setTime(1_767_225_600_000L);
        return entry;
    }

    @Test
    void jarsKeepTheirEntriesStoredAndSharedFilesBecomeOneFile() throws IOException {
        Path one = jar(dir.resolve("plugin/lib/x.jar"));
        Path two = jar(dir.resolve("exporter/lib/x.jar"));

        assertThat(BundleFiles.storeJars(dir)).isEqualTo(2);
        assertThat(BundleFiles.linkDuplicates(dir)).isEqualTo(1);

        try (JarFile jar = new JarFile(one.toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Multi-Release")).isEqualTo("true");
            ZipEntry entry = jar.getEntry("a/B.class");
            assertThat(entry.getMethod()).isEqualTo(ZipEntry.STORED);
            assertThat(new String(jar.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("class bytes ".repeat(100));
            assertThat(jar.stream().map(ZipEntry::getName)).containsExactly("META-INF/MANIFEST.MF", "a/", "a/B.class");
        }
        Object key = Files.readAttributes(one, BasicFileAttributes.class).fileKey();
        assertThat(Files.readAttributes(two, BasicFileAttributes.class).fileKey()).isEqualTo(key);
    }
}
