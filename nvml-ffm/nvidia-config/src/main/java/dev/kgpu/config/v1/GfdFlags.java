package dev.kgpu.config.v1;

import java.util.Objects;

/**
 * {@code flags.gfd}: settings only feature discovery reads.
 *
 * @param oneshot         label once and exit
 * @param noTimestamp     leave out {@code nvidia.com/gfd.timestamp}
 * @param sleepInterval   time between labelling passes
 * @param outputFile      the NFD feature file written by the {@code file} sink; empty for none
 * @param machineTypeFile where {@code nvidia.com/gpu.machine} is read from; empty for none
 */
public record GfdFlags(boolean oneshot, boolean noTimestamp, SleepInterval sleepInterval, String outputFile, String machineTypeFile) {

    public GfdFlags {
        Objects.requireNonNull(sleepInterval, "sleepInterval");
        Objects.requireNonNull(outputFile, "outputFile");
        Objects.requireNonNull(machineTypeFile, "machineTypeFile");
    }
}
