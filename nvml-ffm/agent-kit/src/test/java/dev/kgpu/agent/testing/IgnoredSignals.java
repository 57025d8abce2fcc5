package dev.kgpu.agent.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which signals this process was started with ignored, as the kernel reports it (the {@code SigIgn} mask of
 * {@code /proc/self/status}). A signal ignored at start stays ignored in every process started from here, the JVM
 * installs no handler for it and a shell cannot trap it: a CI job started under {@code nohup} ignores SIGHUP, one
 * started in the background of a non-interactive shell SIGINT. Tests of signal handling ask here first.
 */
public final class IgnoredSignals {

    public static final int SIGHUP = 1;
    public static final int SIGINT = 2;
    public static final int SIGTERM = 15;

    private IgnoredSignals() {
    }

    /** Whether signal {@code number} (1 for SIGHUP, 15 for SIGTERM, ...) is ignored by this process. */
    public static boolean ignored(int number) {
        if (number < 1 || number > 64) {
            throw new IllegalArgumentException("signal number was '" + number + "' but it must be 1 to 64");
        }
        try {
            String mask = Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8).stream()
                    .filter(line -> line.startsWith("SigIgn:"))
                    .map(line -> line.substring("SigIgn:".length()).strip())
                    .findFirst().orElseThrow(() -> new IllegalStateException("/proc/self/status has no SigIgn line"));
            return new BigInteger(mask, 16).testBit(number - 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
