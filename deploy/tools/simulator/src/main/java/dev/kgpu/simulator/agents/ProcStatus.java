package dev.kgpu.simulator.agents;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/** Memory and CPU figures of a process from Linux's {@code /proc/<pid>/status} and {@code /proc/<pid>/stat}. */
public final class ProcStatus {

    private ProcStatus() {
    }

    /** Resident set size ({@code VmRSS}) in KiB, or empty when the process is gone or the file unreadable. */
    public static OptionalLong rssKib(long pid) {
        return field(pid, "VmRSS:");
    }

    /** Peak resident set size ({@code VmHWM}) in KiB, or empty. */
    public static OptionalLong peakRssKib(long pid) {
        return field(pid, "VmHWM:");
    }

    /**
     * CPU time the process used so far, user and system, all its threads ({@code utime + stime} of
     * {@code /proc/<pid>/stat}, in clock ticks of 10 ms), in milliseconds; empty when it is gone.
     */
    public static OptionalLong cpuMillis(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // the command name (field 2) may hold spaces and parentheses: count fields after its closing one
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return OptionalLong.of(ticks * 1000 / CLOCK_TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** {@code sysconf(_SC_CLK_TCK)}, which is 100 on every Linux the kernel's USER_HZ allows. */
    private static final long CLOCK_TICKS_PER_SECOND = 100;

    private static OptionalLong field(long pid, String name) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith(name)) {
                    String[] parts = line.substring(name.length()).trim().split("\\s+");
                    return OptionalLong.of(Long.parseLong(parts[0]));
                }
            }
            return OptionalLong.empty();
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
