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
 * Replaces a file so that a crash at any point leaves the old content or the new, never part of either, and so that
 * the new content is on disk when the call returns: the bytes go to a temporary file next to the target, which is
 * synced ({@code fsync}) and renamed over the target; then the folder is synced, so that the rename itself survives a
 * power loss. CDI spec files ({@link CdiSpecWriter}) and the DRA driver's checkpoint are written this way.
 *
 * <p>Stateless; thread-safe (each write has its own temporary file).
 */
public final class DurableFiles {

    private DurableFiles() {
    }

    /**
     * Writes {@code content} to {@code target} as described above; the folder must exist.
     *
     * @param prefix      the temporary file's name starts with it (then a random part and {@code .tmp})
     * @param permissions the file's permissions, empty to keep the default of a temporary file (0600)
     * @throws IOException when it cannot be written; the temporary file is removed again and the target is untouched
     */
    public static void replace(Path target, byte[] content, String prefix, Set<PosixFilePermission> permissions)
            throws IOException {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(content, "content");
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
                channel.force(true);
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
        syncFolder(folder);
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
