package dev.kgpu.discovery.publish;

import dev.kgpu.config.BoundedFile;
import dev.kgpu.discovery.labels.Labels;
import dev.kgpu.discovery.settings.LabelSinkKind;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Writes GFD's feature file for NFD's local source: one {@code key=value} line per label.
 *
 * <p>The file is replaced atomically (a temporary file in the same folder, then a rename), with mode
 * 0644, so NFD never reads half a file. It is left alone when its labels are already right. Nothing else
 * is touched: a folder that does not exist is not created (discovery runs as root, so a mistyped
 * {@code GFD_OUTPUT_FILE} would create any path), and a path that is not a regular file (a device such as
 * {@code /dev/zero}, a folder) is never replaced; either fails the pass with one line saying so, as NVIDIA's
 * GFD fails to write there too.
 */
public final class FeatureFileSink implements LabelSink {

    private static final System.Logger LOG = System.getLogger(FeatureFileSink.class.getName());

    /** Far more than the labels of the largest node (256 GPUs) take; a larger file is not a feature file of GFD's. */
    static final long MAX_BYTES = 1 << 20;

    private final Path file;
    private final boolean removeOnClose;

    /**
     * @param removeOnClose whether {@link #close()} deletes the file; GFD does so unless it ran once or
     *                      sleeps forever
     */
    public FeatureFileSink(Path file, boolean removeOnClose) {
        this.file = Objects.requireNonNull(file, "file").toAbsolutePath();
        this.removeOnClose = removeOnClose;
    }

    public Path file() {
        return file;
    }

    @Override
    public String name() {
        return LabelSinkKind.FILE.wireName();
    }

    @Override
    public Outcome publish(Labels labels) throws PublishException {
        Path folder = file.getParent();
        if (!Files.isDirectory(folder)) {
            throw new PublishException.FileFailed("feature file " + file + ": its folder " + folder
                    + (Files.exists(folder) ? " is not a folder;" : " does not exist;")
                    + " discovery creates no folders (it runs as root): create it, or mount NFD's features.d there");
        }
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                && !Files.isSymbolicLink(file)) {
            throw new PublishException.FileFailed("feature file " + file + " is not a regular file (a device or a"
                    + " folder?); discovery replaces only a feature file it can rename over");
        }
        Labels published = read();
        if (published != null && published.sameIgnoringTimestamp(labels)) {
            return Outcome.UNCHANGED;
        }
        Path temporary = null;
        try {
            temporary = Files.createTempFile(folder, "." + file.getFileName() + ".", ".tmp");
            Files.writeString(temporary, labels.toFeatureFile(), StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-r--r--"));
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the folder " + folder + " does not support an atomic rename", e);
            }
            temporary = null;
            return Outcome.WROTE;
        } catch (IOException e) {
            throw new PublishException.FileFailed("writing feature file " + file, e);
        } finally {
            if (temporary != null) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException e) {
                    LOG.log(Level.WARNING, "could not remove temporary file {0}: {1}", temporary, e);
                }
            }
        }
    }

    /** The labels in the file now, or null when there is no file or it is not a feature file. */
    private Labels read() throws PublishException {
        String text;
        try {
            text = new String(BoundedFile.readBytes(file, MAX_BYTES), StandardCharsets.UTF_8);
        } catch (NoSuchFileException | BoundedFile.TooLargeException e) {
            return null; // none, or not a feature file of GFD's: replaced
        } catch (IOException e) {
            throw new PublishException.FileFailed("reading feature file " + file, e);
        }
        Map<String, String> labels = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            int equals = line.indexOf('=');
            if (equals < 1) {
                return null;
            }
            labels.put(line.substring(0, equals), line.substring(equals + 1));
        }
        return Labels.of(labels);
    }

    @Override
    public void close() {
        if (!removeOnClose) {
            return;
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not remove feature file {0}: {1}", file, e);
        }
    }
}
