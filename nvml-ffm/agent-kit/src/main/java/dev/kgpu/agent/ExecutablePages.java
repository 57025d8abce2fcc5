package dev.kgpu.agent;

import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.v1.ValueType;
import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * pages are reclaimed, as memory pressure would, and those the agent uses come back on their next read; pages it wrote
 * (anonymous copies) stay. Only in a native executable (a JVM's own mappings are the JDK's); a kernel older than 5.4
 * refuses the advice ({@code EINVAL}) and nothing changes. {@code KGPU_RELEASE_STARTUP_PAGES=false} ({@link #SETTING},
 * listed among each agent's settings) keeps them resident. Stateless; any thread.
 */
public final class ExecutablePages {

    /** {@code KGPU_RELEASE_STARTUP_PAGES}: whether a native agent hands its start-up pages back once it serves. */
    public static final Setting<Boolean> SETTING = Setting.of(List.of(), List.of("KGPU_RELEASE_STARTUP_PAGES"),
            ValueType.bool(), true, "kgpu: a native agent hands the pages of its executable that only its start read"
                    + " back to the kernel once it serves (20-30 MiB less resident); false keeps them");

    /** {@code madvise(2)}'s shape: {@code int madvise(void *addr, size_t length, int advice)}; registered for native-image. */
    static final FunctionDescriptor MADVISE_SHAPE = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT);
    /** {@code MADV_PAGEOUT} (Linux 5.4). */
    static final int MADV_PAGEOUT = 21;
    private static final System.Logger LOG = System.getLogger(ExecutablePages.class.getName());

    private ExecutablePages() {
    }

    /** One mapping of {@code /proc/self/maps}: {@code [start, end)}. */
    record Mapping(long start, long end) {
        long length() {
            return end - start;
        }
    }

    /**
     * Once the agent serves: in a native executable, pages out its executable's mappings and logs one INFO line with
     * the resident memory before and after; when {@code enabled} ({@link #SETTING}) is false, one INFO line saying the
     * pages stay; in a JVM nothing. Never throws: this only saves memory (a failure is one DEBUG line).
     */
    public static void releaseStartupPages(boolean enabled) {
        if (!"runtime".equals(System.getProperty("org.graalvm.nativeimage.imagecode"))) {
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
            List<Mapping> mappings = mappings(Files.readString(Path.of("/proc/self/maps")), executable.toString());
            long before = residentKiB(Files.readString(Path.of("/proc/self/status")));
            long advised = pageOut(mappings);
            long after = residentKiB(Files.readString(Path.of("/proc/self/status")));
            LOG.log(System.Logger.Level.INFO, "start-up done: {3}''s start-up pages handed back to the kernel, resident"
                    + " {0} MiB before and {1} MiB after ({2} MiB of mappings advised)", before / 1024, after / 1024,
                    advised >> 20, executable);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "the executable''s start-up pages stay resident: {0}", e.toString());
        }
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
                    Long.parseUnsignedLong(fields[0].substring(dash + 1), 16)));
        }
        return found;
    }

    /** Advises {@code MADV_PAGEOUT} over each mapping; the bytes the kernel accepted the advice for. */
    static long pageOut(List<Mapping> mappings) {
        long advised = 0;
        for (Mapping m : mappings) {
            if (Libc.madvise(m.start(), m.length(), MADV_PAGEOUT) == 0) {
                advised += m.length();
            }
        }
        return advised;
    }

    /** {@code madvise(2)} of the C library, its status only (errno is not needed: a refusal changes nothing). */
    private static final class Libc {
        private static final Optional<MethodHandle> MADVISE = Linker.nativeLinker().defaultLookup().find("madvise")
                .map(address -> Linker.nativeLinker().downcallHandle(address, MADVISE_SHAPE));

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
    }
}
