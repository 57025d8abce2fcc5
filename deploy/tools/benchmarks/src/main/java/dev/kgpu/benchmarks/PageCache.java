package dev.kgpu.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What of an agent's own files (its image's root filesystem, or NVIDIA's binary) is in the page cache when it starts.
 * A start reads its executable's pages, so a start-up figure depends on it, and so does RSS (the kernel maps cached
 * pages around each one read). Left alone, it depends on the run before: a kgpu native agent hands its start-up pages
 * back to the kernel once it serves ({@code dev.kgpu.agent.ExecutablePages}), which also drops them from the cache,
 * so its next start reads them from disk again. Every subject and run therefore starts from the same state:
 * <ul>
 *   <li>{@link #PULLED} (the default): every file read in first, as a node holds them just after pulling the image;</li>
 *   <li>{@link #EVICTED}: every file written back and dropped from the cache first, as after a node's reboot;</li>
 *   <li>{@link #AS_LEFT}: nothing done, as runs before 2026-12-03 were measured.</li>
 * </ul>
 */
enum PageCache {
    PULLED("pulled"),
    EVICTED("evicted"),
    AS_LEFT("as-left");

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
        throw new IllegalArgumentException("--page-cache was '" + value + "' but it must be pulled, evicted or as-left");
    }

    /** Brings {@code files} into this state before an agent that runs them starts. */
    void prepare(List<Path> files) {
        switch (this) {
            case PULLED -> files.forEach(PageCache::readIn);
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
