package dev.kgpu.agent;

import dev.kgpu.agent.testing.IgnoredSignals;
import org.junit.jupiter.api.Test;
import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A real SIGTERM, raised in this JVM, reaches the action instead of ending the JVM with status 143. */
class StopSignalTest {

    @Test
    void aSigtermRunsTheActionInsteadOfTheJvmsShutdown() throws Exception {
        assertThat(IgnoredSignals.ignored(IgnoredSignals.SIGTERM)).as("this test JVM was started with SIGTERM ignored").isFalse();
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
}
