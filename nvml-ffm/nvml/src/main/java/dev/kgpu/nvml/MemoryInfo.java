package dev.kgpu.nvml;

import java.util.OptionalLong;

/**
 * Framebuffer memory in bytes. {@code reservedBytes} is present where NVML's v2 memory query works
 * (driver R510 and later); {@code usedBytes} then excludes it, as NVML reports.
 */
public record MemoryInfo(long totalBytes, long freeBytes, long usedBytes, OptionalLong reservedBytes) {

    private static final long MIB = 1024L * 1024L;

    public MemoryInfo {
        if (totalBytes < 0 || freeBytes < 0 || usedBytes < 0) {
            throw new IllegalArgumentException("memory was total=%d free=%d used=%d but no value may be negative"
                    .formatted(totalBytes, freeBytes, usedBytes));
        }
    }

    public long totalMiB() {
        return totalBytes / MIB;
    }

    public long freeMiB() {
        return freeBytes / MIB;
    }

    public long usedMiB() {
        return usedBytes / MIB;
    }

    public OptionalLong reservedMiB() {
        return reservedBytes.isPresent() ? OptionalLong.of(reservedBytes.getAsLong() / MIB) : OptionalLong.empty();
    }
}
