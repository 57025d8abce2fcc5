package dev.kgpu.discovery.publish;

import dev.kgpu.config.LabelSinkKind;
import dev.kgpu.discovery.labels.Labels;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
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
 * 0644, so NFD never reads half a file. It is left alone when its labels are already right.
 */
public final class FeatureFileSink implements LabelSink {

    private static final System.Logger LOG = System.getLogger(FeatureFileSink.class.getName());

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
        Labels published = read();
        if (published != null && published.sameIgnoringTimestamp(labels)) {
            return Outcome.UNCHANGED;
        }
        Path folder = file.getParent();
        Path temporary = null;
        try {
            Files.createDirectories(folder);
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
                    LOG.log(Level.WARNING, "could not remove temporary file " + temporary + ": " + e);
                }
            }
        }
    }

    /** The labels in the file now, or null when there is no file or it is not a feature file. */
    private Labels read() throws PublishException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return null;
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
            LOG.log(Level.WARNING, () -> String.format("could not remove feature file %s: %s", file, e));
        }
    }
}
