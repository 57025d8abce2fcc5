package dev.kgpu.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a file that a setting names (a config file, a counters CSV, a machine-type file), bounded by the
 * bytes actually read rather than by the size {@code stat} reports: {@code /dev/zero}, a pipe or a file
 * under {@code /proc} report a size of 0 and never end, or end far past it. Reading stops one byte past
 * the limit, so a file of any size costs at most {@code maxBytes + 1} bytes of heap.
 *
 * <pre>{@code
 * String yaml = BoundedFile.readText(path, 4 << 20, "CONFIG_FILE");
 * // InvalidConfigException: CONFIG_FILE was '/dev/zero' but it must name a file of at most 4194304 bytes
 * }</pre>
 *
 * <p>For a setting's file every failure is one {@link ValidationFailure} naming the setting and the path:
 * the file is missing or unreadable, holds more than the limit, or is not UTF-8 text. Other files get an
 * {@link IOException}, {@link TooLargeException} past the limit. Thread-safe: no state.
 */
public final class BoundedFile {

    private BoundedFile() {
    }

    /**
     * The file's bytes, for files that are not settings (a CDI spec, a driver table under {@code /proc}).
     *
     * @param maxBytes the most the file may hold, at most {@code Integer.MAX_VALUE - 8}
     * @throws TooLargeException when the file holds more than {@code maxBytes}; reading stopped there
     * @throws IOException       when it cannot be read
     */
    public static byte[] readBytes(Path path, long maxBytes) throws IOException {
        if (maxBytes < 0 || maxBytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("maxBytes was '" + maxBytes + "' but it must be in 0.." + (Integer.MAX_VALUE - 8));
        }
        byte[] data;
        try (InputStream in = Files.newInputStream(path)) {
            data = in.readNBytes((int) maxBytes + 1);
        }
        if (data.length > maxBytes) {
            throw new TooLargeException(path, maxBytes);
        }
        return data;
    }

    /**
     * The bytes of a file a setting names.
     *
     * @param maxBytes the most the file may hold, at most {@code Integer.MAX_VALUE - 8}
     * @param property the setting that named the file ({@code CONFIG_FILE}, {@code --collectors}), for messages
     * @throws InvalidConfigException when the file cannot be read or holds more than {@code maxBytes}
     */
    public static byte[] readBytes(Path path, long maxBytes, String property) {
        try {
            return readBytes(path, maxBytes);
        } catch (TooLargeException e) {
            throw InvalidConfigException.of(property, path, e.reason());
        } catch (IOException e) {
            throw InvalidConfigException.of(property, path, "must name a readable file (" + describe(e) + ")");
        }
    }

    /**
     * The file's text, decoded as UTF-8; malformed bytes are an error, not replaced.
     *
     * @throws InvalidConfigException when the file cannot be read, holds more than {@code maxBytes} or is not
     *                                UTF-8 text
     */
    public static String readText(Path path, long maxBytes, String property) {
        byte[] data = readBytes(path, maxBytes, property);
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(data)).toString();
        } catch (CharacterCodingException e) {
            throw InvalidConfigException.of(property, path, "must name a UTF-8 text file");
        }
    }

    /** {@code NoSuchFileException: /etc/x}, the exception's type and message. */
    static String describe(IOException e) {
        String type = e.getClass().getSimpleName();
        return e.getMessage() == null ? type : type + ": " + e.getMessage();
    }

    private static String readable(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return bytes / (1 << 20) + " MiB";
        }
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
            return bytes / (1 << 10) + " KiB";
        }
        return bytes + " B";
    }

    /** A file holds more than its limit; its message reads {@code /dev/zero holds more than 4194304 bytes ...}. */
    public static final class TooLargeException extends IOException {
        private final long maxBytes;

        TooLargeException(Path path, long maxBytes) {
            super(path + " holds more than " + maxBytes + " bytes (" + readable(maxBytes) + "); reading stopped there");
            this.maxBytes = maxBytes;
        }

        /** Why, worded to follow "but it". */
        String reason() {
            return "must name a file of at most " + maxBytes + " bytes (" + readable(maxBytes) + "); reading stopped there";
        }
    }
}
