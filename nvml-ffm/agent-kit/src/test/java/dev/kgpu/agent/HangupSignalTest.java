package dev.kgpu.agent;

import org.junit.jupiter.api.Test;
import sun.misc.Signal;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A real SIGHUP, raised in this JVM, reaches the action; unless the process was started with it ignored. */
class HangupSignalTest {

    @Test
    void aSighupRunsTheActionUnlessTheProcessIgnoresIt() throws Exception {
        CountDownLatch reloaded = new CountDownLatch(1);
        boolean ignoredAtStart = sighupIgnored();

        boolean relayed = HangupSignal.relayTo(reloaded::countDown);

        if (ignoredAtStart) {
            // started under nohup (as a CI job may be): the JVM installs no handler, and says so
            assertThat(relayed).isFalse();
            return;
        }
        assertThat(relayed).isTrue();
        Signal.raise(new Signal("HUP"));
        assertThat(reloaded.await(30, TimeUnit.SECONDS)).isTrue();
    }

    /** Whether SIGHUP (signal 1, bit 0) is in this process's ignored mask, as the kernel reports it. */
    private static boolean sighupIgnored() throws IOException {
        String mask = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(line -> line.startsWith("SigIgn:"))
                .map(line -> line.substring("SigIgn:".length()).strip())
                .findFirst().orElseThrow();
        return new BigInteger(mask, 16).testBit(0);
    }
}
