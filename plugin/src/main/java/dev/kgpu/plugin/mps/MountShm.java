package dev.kgpu.plugin.mps;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code mps-control-daemon mount-shm}, the init container of NVIDIA's MPS DaemonSet
 * ({@code cmd/mps-control-daemon/mount/mount-shm.go}, v0.17): gives the MPS clients their shared memory, a tmpfs at
 * {@code <MPS root>/shm} of half the node's memory, mounted as
 * {@code mount -t tmpfs -o rw,nosuid,nodev,noexec,relatime,size=<half of MemTotal> shm <root>/shm} (unmounted first if
 * it is mounted already). kgpu's images have no {@code mount} program, so it calls {@code mount(2)} through Java's
 * foreign-function API; it needs {@code CAP_SYS_ADMIN}, which only this init container gets (and a Bidirectional mount
 * of the root, so that the host and the other containers see the tmpfs). Stateless.
 */
public final class MountShm {

    /** The subcommand, as NVIDIA's. */
    public static final String COMMAND = "mount-shm";
    /** NVIDIA's size when {@code /proc/meminfo} has no {@code MemTotal}. */
    static final String FALLBACK_SIZE = "65536k";
    /**
     * {@code mount(2)}'s and {@code umount2(2)}'s shapes, linked with {@code errno} captured: native-image needs each
     * registered (META-INF/native-image/dev.kgpu/plugin/reachability-metadata.json, which MountShmTest checks).
     */
    static final FunctionDescriptor MOUNT_SHAPE = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
    static final FunctionDescriptor UMOUNT2_SHAPE = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT);
    static final long MS_NOSUID = 2;
    static final long MS_NODEV = 4;
    static final long MS_NOEXEC = 8;
    static final long MS_RELATIME = 1L << 21;
    private static final Pattern MEM_TOTAL = Pattern.compile("(?m)^MemTotal:\\s+(\\d+)\\s*(\\w*)\\s*$");

    private MountShm() {
    }

    /** Mounts {@code <root>/shm}; the exit status (0 mounted, 1 with one line on {@code err}). */
    public static int run(Path root, PrintStream out, PrintStream err) {
        Path shm = new MpsPaths(root).shm();
        String options;
        try {
            options = "size=" + size(Files.readString(Path.of("/proc/meminfo")));
        } catch (IOException e) {
            options = "size=" + FALLBACK_SIZE;
        }
        try {
            if (mounted(shm, Files.readString(Path.of("/proc/self/mountinfo")))) {
                Libc.umount(shm);
            }
            Files.createDirectories(shm);
            Libc.mount("shm", shm, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME, options);
        } catch (IOException e) {
            err.println("mps-control-daemon mount-shm: could not mount the MPS clients' shared memory on " + shm + ": "
                    + e.getMessage());
            return 1;
        }
        out.println("mounted tmpfs shm on " + shm + " (rw,nosuid,nodev,noexec,relatime," + options + ")");
        return 0;
    }

    /** Half of {@code MemTotal} in its own unit ({@code 65812345k}), as NVIDIA computes it; the fallback without one. */
    static String size(String meminfo) {
        Matcher m = MEM_TOTAL.matcher(meminfo);
        if (!m.find()) {
            return FALLBACK_SIZE;
        }
        long half = Long.parseLong(m.group(1)) / 2;
        String unit = m.group(2).toLowerCase(java.util.Locale.ROOT);
        return half + (unit.endsWith("b") ? unit.substring(0, unit.length() - 1) : unit);
    }

    /** Whether {@code path} is a mount point in {@code mountinfo} (the fifth field of a line, escaped as the kernel does). */
    static boolean mounted(Path path, String mountinfo) {
        String wanted = path.toAbsolutePath().normalize().toString();
        return mountinfo.lines().map(line -> line.split(" ")).filter(fields -> fields.length > 4)
                .anyMatch(fields -> unescape(fields[4]).equals(wanted));
    }

    private static String unescape(String field) {
        return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
    }

    /** {@code mount(2)} and {@code umount2(2)} of the C library, with {@code errno}. */
    private static final class Libc {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final StructLayout STATE = Linker.Option.captureStateLayout();
        private static final VarHandle ERRNO = STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        private static final MethodHandle MOUNT = downcall("mount", MOUNT_SHAPE);
        private static final MethodHandle UMOUNT2 = downcall("umount2", UMOUNT2_SHAPE);
        private static final MethodHandle STRERROR = LINKER.downcallHandle(
                LINKER.defaultLookup().find("strerror").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

        private static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
            return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor,
                    Linker.Option.captureCallState("errno"));
        }

        static void mount(String source, Path target, String type, long flags, String data) throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(STATE);
                int rc = (int) MOUNT.invokeExact(state, arena.allocateFrom(source), arena.allocateFrom(target.toString()),
                        arena.allocateFrom(type), flags, (MemorySegment) arena.allocateFrom(data));
                check(rc, state, "mount");
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        static void umount(Path target) throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(STATE);
                int rc = (int) UMOUNT2.invokeExact(state, arena.allocateFrom(target.toString()), 0);
                check(rc, state, "umount");
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        private static void check(int rc, MemorySegment state, String call) throws Throwable {
            if (rc != 0) {
                int errno = (int) ERRNO.get(state, 0L);
                MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
                throw new IOException(call + ": " + text.reinterpret(256).getString(0) + " (errno " + errno + ")");
            }
        }
    }
}
