package dev.kgpu.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What of an agent's own files (its image's root filesystem, or NVIDIA's binary) is in the page cache when it starts.
 * A start reads its executable's pages, so a start-up figure depends on it, and so does RSS (the kernel maps cached
 * pages around each one read). Left alone, it depends on the run before: a kgpu native agent hands its start-up pages
 * back to the kernel once it serves ({@code dev.kgpu.agent.ExecutablePages}), which also drops them from the cache,
 * so its next start reads them from disk again. How the pages came into the cache matters as much as whether they
 * are there: since Linux 6.18 a fault maps the whole page-cache folio it hits, and a file read in with large reads (or
 * by read-ahead) is cached in folios of up to 2 MiB, while one written in small writes is cached in small folios, of
 * which a fault maps its 64 KiB fault-around window. Every subject and run therefore starts from the same state:
 * <ul>
 *   <li>{@link #UNPACKED} (the default): every file written anew in 32 KiB writes, as containerd's unpacking of a
 *       layer writes it ({@code archive.copyBuffered}), and synced: what a node holds just after pulling the image;</li>
 *   <li>{@link #READ_IN}: every file read in with 1 MiB reads, as after a whole-file read such as {@code cat} (the
 *       default, then called "pulled", until 2026-12-03 09:00 UTC);</li>
 *   <li>{@link #EVICTED}: every file written back and dropped from the cache first, as after a node's reboot: the
 *       start reads its pages back by read-ahead;</li>
 *   <li>{@link #AS_LEFT}: nothing done, as runs before 2026-12-03 were measured.</li>
 * </ul>
 */
enum PageCache {
    UNPACKED("unpacked"),
    READ_IN("read-in"),
    EVICTED("evicted"),
    AS_LEFT("as-left");

    /** The size of containerd's unpacking buffer, so of each write that puts a layer's file on the node. */
    static final int UNPACK_WRITE_SIZE = 32 * 1024;

    private final String option;

    PageCache(String option) {
        this.option = option;
    }

    String option() {
        return option;
    }

    /** The mode {@code --page-cache=<value>} names; one line naming the value when it names none. */
    static PageCache of(String value) {
        for (PageCache mode : values()) {
            if (mode.option.equals(value)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("--page-cache was '" + value + "' but it must be unpacked, read-in, evicted or as-left");
    }

    /** Brings {@code files} into this state before an agent that runs them starts. */
    void prepare(List<Path> files) {
        switch (this) {
            case UNPACKED -> files.forEach(PageCache::unpack);
            case READ_IN -> files.forEach(PageCache::readIn);
            case EVICTED -> evict(files);
            case AS_LEFT -> {
            }
        }
    }

    /** The regular files under {@code root}, symbolic links not followed. */
    static List<Path> filesUnder(Path root) {
        try (var walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            throw new BenchmarkException("could not list " + root + ": " + e.getMessage(), e);
        }
    }

    private static void readIn(Path file) {
        byte[] buffer = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file)) {
            while (in.read(buffer) >= 0) {
                // read only to bring the pages in
            }
        } catch (IOException e) {
            throw new BenchmarkException("could not read " + file + " into the page cache: " + e.getMessage(), e);
        }
    }

    /**
     * Writes {@code file} anew beside itself in {@link #UNPACK_WRITE_SIZE} writes, syncs it, gives it the old one's
     * permissions and modification time, and renames it over the old one, whose cached pages go with its inode.
     */
    static void unpack(Path file) {
        Path fresh = file.resolveSibling(file.getFileName() + ".unpacking");
        try {
            var permissions = Files.getPosixFilePermissions(file);
            FileTime modified = Files.getLastModifiedTime(file);
            byte[] buffer = new byte[UNPACK_WRITE_SIZE];
            try (InputStream in = Files.newInputStream(file);
                 OutputStream out = Files.newOutputStream(fresh, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                for (int n = in.readNBytes(buffer, 0, buffer.length); n > 0; n = in.readNBytes(buffer, 0, buffer.length)) {
                    out.write(buffer, 0, n);
                }
            }
            try (FileChannel channel = FileChannel.open(fresh, StandardOpenOption.WRITE)) {
                channel.force(true);
            }
            Files.setPosixFilePermissions(fresh, permissions);
            Files.setLastModifiedTime(fresh, modified);
            Files.move(fresh, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(fresh);
            } catch (IOException ignored) {
                // the message below names the file; a left-over .unpacking file is the lesser problem
            }
            throw new BenchmarkException("could not write " + file + " anew as an image's unpacking does: " + e.getMessage(), e);
        }
    }

    /** {@code sync} writes the files back (a dirty page stays cached), GNU dd's {@code iflag=nocache} drops them. */
    private static void evict(List<Path> files) {
        if (files.isEmpty()) {
            return;
        }
        List<String> sync = new ArrayList<>(List.of("sync", "--data"));
        files.forEach(f -> sync.add(f.toString()));
        run(sync);
        for (Path file : files) {
            run(List.of("dd", "if=" + file, "iflag=nocache", "count=0", "status=none"));
        }
    }

    private static void run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes()).strip();
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new BenchmarkException(String.format(Locale.ROOT, "could not evict from the page cache: %s failed: %s",
                        command.getFirst(), output));
            }
        } catch (IOException e) {
            throw new BenchmarkException("could not evict from the page cache: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchmarkException("interrupted while evicting from the page cache", e);
        }
    }
}
