package dev.kgpu.simulator.agents;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/** Memory figures of a process from Linux's {@code /proc/<pid>/status}. */
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
