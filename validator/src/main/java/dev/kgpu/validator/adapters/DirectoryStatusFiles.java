package dev.kgpu.validator.adapters;

import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.GpuWorkload;
import dev.kgpu.validator.core.StatusFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * Status files in {@code OUTPUT_DIR}. A file is written to a temporary file in the same directory and
 * renamed over the target, so a reader (an init container's {@code until [ -f ... ]} loop followed by
 * {@code . driver-ready}) never sees half a file.
 */
public final class DirectoryStatusFiles implements StatusFiles {

    private final Path directory;

    public DirectoryStatusFiles(Path directory) {
        this.directory = directory;
    }

    public Path directory() {
        return directory;
    }

    public Path fileOf(Component component) {
        return directory.resolve(component.statusFileName());
    }

    @Override
    public void remove(Component component) {
        Path file = fileOf(component);
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("could not remove " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void write(Component component, List<String> lines) {
        write(component.statusFileName(), lines);
    }

    @Override
    public void writeWorkloadType(GpuWorkload workload) {
        write(GpuWorkload.STATUS_FILE, List.of(workload.wireName()));
    }

    private void write(String name, List<String> lines) {
        Path file = directory.resolve(name);
        Path temporary = null;
        try {
            Files.createDirectories(directory);
            temporary = Files.createTempFile(directory, "." + name + ".", ".tmp");
            StringBuilder content = new StringBuilder();
            lines.forEach(line -> content.append(line).append('\n'));
            Files.writeString(temporary, content, StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            temporary = null;
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file + ": " + e, e);
        } finally {
            if (temporary != null) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException ignored) {
                    // the write already failed; that is the error to report
                }
            }
        }
    }

    @Override
    public boolean exists(Component component) {
        return Files.exists(fileOf(component));
    }

    @Override
    public void removeAllReadyFiles() {
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (DirectoryStream<Path> ready = Files.newDirectoryStream(directory, "*-ready")) {
            for (Path file : ready) {
                // Like the shell's rm -f *-ready: hidden files such as the driver container's
                // .driver-ctr-ready belong to other operands and stay.
                if (!file.getFileName().toString().startsWith(".")) {
                    Files.deleteIfExists(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not remove *-ready files in " + directory + ": " + e, e);
        }
    }
}
