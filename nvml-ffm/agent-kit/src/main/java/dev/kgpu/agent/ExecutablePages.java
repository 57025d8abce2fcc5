package dev.kgpu.agent;

import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.v1.ValueType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Hands back to the kernel the pages of a native executable that its start-up read and its work then leaves alone.
 *
 * <p>A native agent maps its whole executable (code and the image heap, about 77 MB for the plugin) and starting it
 * reads objects and code scattered over much of it; the kernel maps the cached pages around each one it reads (its
 * fault-around), so a plugin that needs about 30 MiB once serving stays at 55-59 MiB resident, almost all of it clean
 * pages of its own file (docs/benchmarks.md, "The executable's start-up pages"). Once the agent serves,
 * {@link #releaseStartupPages} advises {@code MADV_PAGEOUT} over each of the executable's own mappings: the clean file
 * pages are reclaimed, as memory pressure would, and those the agent uses come back on their next read, one page at
 * a time ({@code MADV_RANDOM}: no read-ahead around them); the agent chooses whether the cached pages its start left
 * unmapped stay ({@link CachedRest}). Pages it wrote (anonymous copies) stay. An agent whose first answer someone
 * waits for (the plugin's registration, discovery's first labels) may first call {@link #unmapStartupPages} just
 * before it: a cheap step that only unmaps, so it answers at about the size it serves with instead of with its whole
 * start mapped. Only in a native executable (a JVM's own mappings are the JDK's); a kernel older than 5.4 refuses
 * the advice ({@code EINVAL}) and nothing changes.
 * {@code KGPU_RELEASE_STARTUP_PAGES=false} ({@link #SETTING}, listed among each agent's settings) keeps them
 * resident. Stateless; any thread.
 */
public final class ExecutablePages {

    /**
     * {@code KGPU_RELEASE_STARTUP_PAGES}: whether a native agent hands its start-up pages back once it serves (and the
     * plugin unmaps them before it registers, discovery before its first pass).
     */
    public static final Setting<Boolean> SETTING = Setting.of(List.of(), List.of("KGPU_RELEASE_STARTUP_PAGES"),
            ValueType.bool(), true, "kgpu: a native agent hands the pages of its executable that only its start read"
                    + " back to the kernel once it serves (20-30 MiB less resident); false keeps them");

    /** {@code madvise(2)}'s shape: {@code int madvise(void *addr, size_t length, int advice)}; registered for native-image. */
    static final FunctionDescriptor MADVISE_SHAPE = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT);
    /** {@code MADV_PAGEOUT} (Linux 5.4). */
    static final int MADV_PAGEOUT = 21;
    /** {@code MADV_RANDOM}: no read-ahead on a fault in the range. */
    static final int MADV_RANDOM = 1;
    /** {@code MADV_DONTNEED}: unmaps the range; a file page stays in the page cache, a page the process wrote is lost. */
    static final int MADV_DONTNEED = 4;
    /** {@code int getpagesize(void)}; registered for native-image. */
    static final FunctionDescriptor GETPAGESIZE_SHAPE = FunctionDescriptor.of(ValueLayout.JAVA_INT);
    /** {@code /proc/<pid>/pagemap}: bit 63 of a page's entry, the page is present. */
    static final long PAGEMAP_PRESENT = 1L << 63;
    /** {@code /proc/<pid>/pagemap}: bit 61 of a page's entry, a file page (or shared anonymous memory). */
    static final long PAGEMAP_FILE = 1L << 61;
    /** {@code int open(const char *path, int flags, ...)}'s named parameters; registered for native-image. */
    static final FunctionDescriptor OPEN_SHAPE = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT);
    /** {@code open}'s first variadic parameter (the mode, which a read-only open passes none of). */
    static final int OPEN_FIRST_VARIADIC = 2;
    /** {@code int posix_fadvise(int fd, off_t offset, off_t len, int advice)}; registered for native-image. */
    static final FunctionDescriptor FADVISE_SHAPE = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT);
    /** {@code int close(int fd)}; registered for native-image. */
    static final FunctionDescriptor CLOSE_SHAPE = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT);
    /** {@code O_RDONLY | O_CLOEXEC} (Linux). */
    static final int O_RDONLY_CLOEXEC = 0x80000;
    /** {@code POSIX_FADV_DONTNEED}: drop the file's clean pages that no process maps from the page cache. */
    static final int POSIX_FADV_DONTNEED = 4;
    private static final System.Logger LOG = System.getLogger(ExecutablePages.class.getName());

    private ExecutablePages() {
    }

    /** One mapping of {@code /proc/self/maps}: {@code [start, end)}, and whether the process may write to it. */
    record Mapping(long start, long end, boolean writable) {
        long length() {
            return end - start;
        }
    }

    /** Pages {@code [from, to)} of a mapping, counted from its start. */
    record Run(int from, int to) {
    }

    /** What {@link #unmap} did: the bytes the kernel took the advice for, and the pages of its own it kept. */
    record Unmapped(long advised, long kept) {
    }

    /** What becomes of the executable's cached pages that the agent's start left unmapped, once it has paged out. */
    public enum CachedRest {
        /**
         * They stay in the page cache: a path the agent first takes later maps them from there, and its cached
         * neighbours with them (the kernel's fault-around). For the plugin, whose first XID must reach the kubelet
         * within 10 ms: reading that path's pages from disk one at a time took its first XID from 8 to 16-20 ms.
         */
        KEPT,
        /**
         * They are dropped ({@link #dropUnmappedCache}): a page read later comes alone, from disk. Discovery's daemon
         * at labels written 45 → 37 MiB, the plugin after 2,000 Allocates 40 → 31 MiB.
         */
        DROPPED
    }

    /**
     * Once the agent serves: in a native executable, pages out its executable's mappings, drops or keeps the rest of
     * its cached pages ({@code rest}) and logs one INFO line with the resident memory before and after; when
     * {@code enabled} ({@link #SETTING}) is false, one INFO line saying the pages stay; in a JVM nothing. Never throws:
     * this only saves memory (a failure is one DEBUG line).
     */
    public static void releaseStartupPages(boolean enabled, CachedRest rest) {
        Objects.requireNonNull(rest, "rest");
        if (!inNativeExecutable()) {
            return;
        }
        if (!enabled) {
            // no parameters, so no MessageFormat: the quote is written once
            LOG.log(System.Logger.Level.INFO, "start-up done: the executable's start-up pages stay resident"
                    + " (KGPU_RELEASE_STARTUP_PAGES is false)");
            return;
        }
        try {
            Path executable = Path.of("/proc/self/exe").toRealPath();
            List<Mapping> mappings = mappingsOf(executable);
            long before = residentKiB();
            long advised = pageOut(mappings);
            boolean dropped = rest == CachedRest.DROPPED && dropUnmappedCache(executable);
            long after = residentKiB();
            LOG.log(System.Logger.Level.INFO, "start-up done: {3}''s start-up pages handed back to the kernel, resident"
                    + " {0} MiB before and {1} MiB after ({2} MiB of mappings advised; the pages no process maps {4}"
                    + " the page cache)", before / 1024, after / 1024, advised >> 20, executable,
                    dropped ? "dropped from" : "left in");
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "the executable''s start-up pages stay resident: {0}", e.toString());
        }
    }

    /**
     * Just before the agent's first answer (the plugin: before it first registers with the kubelet), in a native
     * executable: unmaps what its start mapped of the executable's read-only mappings (code, read-only image heap),
     * leaving those pages in the page cache, and logs one INFO line with the resident memory before and after. About 2
     * ms: nothing is read or reclaimed. What the agent touches next is mapped again from the cache, without reading
     * the disk, so its first answers come at once and it answers at a resident size close to what it needs to serve;
     * {@link #releaseStartupPages} still pages out once it serves. {@code MADV_DONTNEED} drops a page this process
     * wrote, so it is advised only over pages that {@code /proc/self/pagemap} shows as the file's own: writable
     * mappings are left alone, as is any page of a read-only mapping the process wrote before it was made read-only
     * (the native image's relocated heap holds one). {@code enabled} is {@link #SETTING}. Never throws (a failure is
     * one DEBUG line); in a JVM nothing.
     */
    public static void unmapStartupPages(boolean enabled) {
        if (!enabled || !inNativeExecutable()) {
            return;
        }
        try {
            int pageSize = Libc.getpagesize();
            if (pageSize <= 0) {
                return;
            }
            Path executable = Path.of("/proc/self/exe").toRealPath();
            List<Mapping> readOnly = mappingsOf(executable).stream().filter(m -> !m.writable()).toList();
            long before = residentKiB();
            Unmapped unmapped = unmap(readOnly, Path.of("/proc/self/pagemap"), pageSize);
            long after = residentKiB();
            LOG.log(System.Logger.Level.INFO, "start-up: {3}''s start-up pages unmapped, still cached, resident {0} MiB"
                    + " before and {1} MiB after ({2} MiB of read-only mappings advised, {4} written pages kept)",
                    before / 1024, after / 1024, unmapped.advised() >> 20, executable, unmapped.kept());
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "the executable''s start-up pages stay mapped: {0}", e.toString());
        }
    }

    /**
     * Advises {@code MADV_DONTNEED} over each mapping's runs of pages that the page map ({@code pagemap}, the file of
     * {@code /proc/self/pagemap}'s format) shows absent or the file's own, so a page this process wrote (an anonymous
     * copy) is never dropped. The mappings must be read-only: in a writable one another thread could write a page
     * between the page map's reading and the advice.
     */
    static Unmapped unmap(List<Mapping> mappings, Path pagemap, int pageSize) throws IOException {
        long advised = 0;
        long kept = 0;
        try (FileChannel entries = FileChannel.open(pagemap, StandardOpenOption.READ)) {
            for (Mapping m : mappings) {
                long[] pages = pageMap(entries, m, pageSize);
                List<Run> runs = unwrittenRuns(pages);
                kept += pages.length - runs.stream().mapToLong(r -> r.to() - r.from()).sum();
                for (Run run : runs) {
                    long length = (long) (run.to() - run.from()) * pageSize;
                    if (Libc.madvise(m.start() + (long) run.from() * pageSize, length, MADV_DONTNEED) == 0) {
                        advised += length;
                    }
                }
            }
        }
        return new Unmapped(advised, kept);
    }

    /** The page map's entries of {@code mapping}'s pages, one per page; 8 bytes each, in the machine's order. */
    private static long[] pageMap(FileChannel entries, Mapping mapping, int pageSize) throws IOException {
        int pages = Math.toIntExact(mapping.length() / pageSize);
        ByteBuffer buffer = ByteBuffer.allocate(Math.multiplyExact(pages, Long.BYTES)).order(ByteOrder.nativeOrder());
        long position = mapping.start() / pageSize * Long.BYTES;
        while (buffer.hasRemaining()) {
            if (entries.read(buffer, position + buffer.position()) <= 0) {
                throw new IOException("the page map ended at " + (buffer.position() / Long.BYTES) + " of " + pages
                        + " pages of the mapping at 0x" + Long.toHexString(mapping.start()));
            }
        }
        long[] found = new long[pages];
        buffer.flip().asLongBuffer().get(found);
        return found;
    }

    /** The runs of pages that are absent or the file's own: every page but those present and anonymous (written). */
    static List<Run> unwrittenRuns(long[] pagemapEntries) {
        List<Run> runs = new ArrayList<>();
        int from = -1;
        for (int page = 0; page <= pagemapEntries.length; page++) {
            boolean written = page < pagemapEntries.length && (pagemapEntries[page] & PAGEMAP_PRESENT) != 0
                    && (pagemapEntries[page] & PAGEMAP_FILE) == 0;
            boolean unwritten = page < pagemapEntries.length && !written;
            if (unwritten && from < 0) {
                from = page;
            } else if (!unwritten && from >= 0) {
                runs.add(new Run(from, page));
                from = -1;
            }
        }
        return runs;
    }

    /** Whether this runs as a native executable: a JVM's own mappings are the JDK's, not the agent's. */
    private static boolean inNativeExecutable() {
        return "runtime".equals(System.getProperty("org.graalvm.nativeimage.imagecode"));
    }

    /** This process's mappings of {@code executable}, from {@code /proc/self/maps}. */
    private static List<Mapping> mappingsOf(Path executable) throws IOException {
        return mappings(Files.readString(Path.of("/proc/self/maps")), executable.toString());
    }

    /** This process's resident size in KiB ({@code VmRSS}); -1 without one. */
    private static long residentKiB() throws IOException {
        return residentKiB(Files.readString(Path.of("/proc/self/status")));
    }

    /** {@code VmRSS} in KiB from the text of {@code /proc/<pid>/status}; -1 without one. */
    static long residentKiB(String status) {
        for (String line : status.split("\n")) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.substring("VmRSS:".length()).replace("kB", "").trim());
            }
        }
        return -1;
    }

    /**
     * The mappings of {@code file} in {@code maps} (the text of {@code /proc/<pid>/maps}): the lines whose path is
     * exactly {@code file}; anonymous mappings, other files and a replaced file ({@code " (deleted)"}) are left out.
     */
    static List<Mapping> mappings(String maps, String file) {
        Objects.requireNonNull(file, "file");
        List<Mapping> found = new ArrayList<>();
        for (String line : maps.split("\n")) {
            // address perms offset dev inode, then the path after spaces (it may itself hold spaces)
            String[] fields = line.trim().split("\\s+", 6);
            if (fields.length < 6 || !fields[5].equals(file)) {
                continue;
            }
            int dash = fields[0].indexOf('-');
            if (dash < 0) {
                continue;
            }
            found.add(new Mapping(Long.parseUnsignedLong(fields[0].substring(0, dash), 16),
                    Long.parseUnsignedLong(fields[0].substring(dash + 1), 16), fields[1].indexOf('w') >= 0));
        }
        return found;
    }

    /**
     * Advises {@code MADV_PAGEOUT} over each mapping, then {@code MADV_RANDOM}; the bytes the kernel accepted the
     * paging-out for. Paging out drops the clean pages from the page cache too (no other process maps them), so each
     * page the agent reads afterwards is read from the file again, and the kernel's read-ahead would read (and, since
     * Linux 6.18, map) up to hundreds of KiB around it: a plugin paged out to 18-23 MiB was back at 40 MiB after 2,000
     * Allocates. {@code MADV_RANDOM} turns read-ahead off for these mappings, so a page read back comes alone.
     */
    static long pageOut(List<Mapping> mappings) {
        long advised = 0;
        for (Mapping m : mappings) {
            if (Libc.madvise(m.start(), m.length(), MADV_PAGEOUT) == 0) {
                advised += m.length();
                Libc.madvise(m.start(), m.length(), MADV_RANDOM);
            }
        }
        return advised;
    }

    /**
     * Drops {@code file}'s cached pages that no process maps from the page cache ({@code POSIX_FADV_DONTNEED}); true
     * when the kernel took the advice. Paging out leaves the pages around those the agent read at start in the cache
     * (the kernel maps its fault-around window only where the agent read), and each page the agent reads later would
     * map its cached neighbours again, 16 at a time: a plugin paged out to 18-23 MiB was back at 38 MiB after 2,000
     * Allocates when its executable had been written as an image's unpacking writes it, 27 MiB when it had been read
     * in whole and paging out had dropped it with its large folios. A page another process maps stays.
     */
    static boolean dropUnmappedCache(Path file) {
        try (Arena arena = Arena.ofConfined()) {
            int fd = Libc.open(arena.allocateFrom(file.toString()), O_RDONLY_CLOEXEC);
            if (fd < 0) {
                return false;
            }
            try {
                return Libc.fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
            } finally {
                Libc.close(fd);
            }
        }
    }

    /** The C library's calls, their status only (errno is not needed: a refusal changes nothing). */
    private static final class Libc {
        private static final Optional<MethodHandle> MADVISE = link("madvise", MADVISE_SHAPE);
        private static final Optional<MethodHandle> OPEN = link("open", OPEN_SHAPE,
                Linker.Option.firstVariadicArg(OPEN_FIRST_VARIADIC));
        private static final Optional<MethodHandle> FADVISE = link("posix_fadvise", FADVISE_SHAPE);
        private static final Optional<MethodHandle> CLOSE = link("close", CLOSE_SHAPE);
        private static final Optional<MethodHandle> GETPAGESIZE = link("getpagesize", GETPAGESIZE_SHAPE);

        private static Optional<MethodHandle> link(String name, FunctionDescriptor shape, Linker.Option... options) {
            return Linker.nativeLinker().defaultLookup().find(name)
                    .map(address -> Linker.nativeLinker().downcallHandle(address, shape, options));
        }

        static int madvise(long address, long length, int advice) {
            if (MADVISE.isEmpty()) {
                return -1;
            }
            try {
                return (int) MADVISE.get().invokeExact(MemorySegment.ofAddress(address), length, advice);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        static int open(MemorySegment path, int flags) {
            if (OPEN.isEmpty()) {
                return -1;
            }
            try {
                return (int) OPEN.get().invokeExact(path, flags);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        /** {@code posix_fadvise}: 0, or the error number itself (it sets no errno). */
        static int fadvise(int fd, long offset, long length, int advice) {
            if (FADVISE.isEmpty()) {
                return -1;
            }
            try {
                return (int) FADVISE.get().invokeExact(fd, offset, length, advice);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        /** The kernel's page size in bytes; -1 when the C library has no {@code getpagesize}. */
        static int getpagesize() {
            if (GETPAGESIZE.isEmpty()) {
                return -1;
            }
            try {
                return (int) GETPAGESIZE.get().invokeExact();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        static int close(int fd) {
            if (CLOSE.isEmpty()) {
                return -1;
            }
            try {
                return (int) CLOSE.get().invokeExact(fd);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
