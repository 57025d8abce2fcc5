package dev.kgpu.agent;

import org.junit.jupiter.api.Test;
import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A real SIGTERM, raised in this JVM, reaches the action instead of ending the JVM with status 143. */
class StopSignalTest {

    @Test
    void aSigtermRunsTheActionInsteadOfTheJvmsShutdown() throws Exception {
        assertThat(sigtermIgnored()).as("this test JVM was started with SIGTERM ignored").isFalse();
        CountDownLatch stopped = new CountDownLatch(1);
        SignalHandler jvms = Signal.handle(new Signal("TERM"), SignalHandler.SIG_DFL);
        Signal.handle(new Signal("TERM"), jvms);
        try {
            assertThat(StopSignal.relayTo(stopped::countDown)).isTrue();

            Signal.raise(new Signal("TERM"));

            assertThat(stopped.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            Signal.handle(new Signal("TERM"), jvms); // the test JVM's own SIGTERM behaviour again
        }
    }

    /** Whether SIGTERM (signal 15, bit 14) is in this process's ignored mask, as the kernel reports it. */
    static boolean sigtermIgnored() throws IOException {
        String mask = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(line -> line.startsWith("SigIgn:"))
                .map(line -> line.substring("SigIgn:".length()).strip())
                .findFirst().orElseThrow();
        return new BigInteger(mask, 16).testBit(14);
    }
}
