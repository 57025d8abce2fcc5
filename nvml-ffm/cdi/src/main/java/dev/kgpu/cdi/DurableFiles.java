package dev.kgpu.cdi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Objects;
import java.util.Set;

/**
 * Replaces a file so that a crash at any point leaves the old content or the new, never part of either: the bytes go
 * to a temporary file next to the target, which is renamed over the target. What the new content must survive
 * decides the disk waits ({@link Survives}): by default a power loss too, so the temporary file is synced
 * ({@code fsync}) before the rename and the folder after it, and the new content is on disk when the call returns.
 * CDI spec files ({@link CdiSpecWriter}) and the DRA driver's checkpoint are written this way.
 *
 * <p>Stateless; thread-safe (each write has its own temporary file).
 */
public final class DurableFiles {

    private DurableFiles() {
    }

    /** What a replaced file must survive; each choice survives a crash of the process (or of its container). */
    public enum Survives {
        /**
         * A crash of the process or of its container, not of the machine: the page cache keeps the new file and the
         * rename, and nothing waits for the disk. A power loss or a kernel crash may bring back the old content, or
         * leave a torn file. For state that the next boot discards anyway.
         */
        PROCESS_CRASH,
        /**
         * A power loss or a kernel crash too: the temporary file is synced before the rename and the folder after it
         * (two disk waits).
         */
        POWER_LOSS
    }

    /**
     * Writes {@code content} to {@code target} as described above, surviving a power loss; the folder must exist.
     *
     * @param prefix      the temporary file's name starts with it (then a random part and {@code .tmp})
     * @param permissions the file's permissions, empty to keep the default of a temporary file (0600)
     * @throws IOException when it cannot be written; the temporary file is removed again and the target is untouched
     */
    public static void replace(Path target, byte[] content, String prefix, Set<PosixFilePermission> permissions)
            throws IOException {
        replace(target, content, prefix, permissions, Survives.POWER_LOSS);
    }

    /**
     * Writes {@code content} to {@code target} as described above, surviving what {@code survives} says; the folder must
     * exist.
     *
     * @param prefix      the temporary file's name starts with it (then a random part and {@code .tmp})
     * @param permissions the file's permissions, empty to keep the default of a temporary file (0600)
     * @throws IOException when it cannot be written; the temporary file is removed again and the target is untouched
     */
    public static void replace(Path target, byte[] content, String prefix, Set<PosixFilePermission> permissions,
                               Survives survives) throws IOException {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(survives, "survives");
        boolean synced = survives == Survives.POWER_LOSS;
        Path folder = target.toAbsolutePath().getParent();
        Path temporary = Files.createTempFile(folder, prefix, ".tmp");
        try {
            if (!permissions.isEmpty()) {
                Files.setPosixFilePermissions(temporary, permissions);
            }
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                if (synced) {
                    channel.force(true);
                }
            }
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system of " + folder + " cannot rename atomically", e);
            }
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(temporary);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        if (synced) {
            syncFolder(folder);
        }
    }

    /**
     * Syncs {@code folder}, so that the names created, renamed or removed in it so far survive a power loss.
     *
     * @throws IOException when it cannot be opened or synced
     */
    public static void syncFolder(Path folder) throws IOException {
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
