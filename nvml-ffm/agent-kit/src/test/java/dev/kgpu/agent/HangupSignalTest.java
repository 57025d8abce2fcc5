package dev.kgpu.agent;

import dev.kgpu.agent.testing.IgnoredSignals;
import org.junit.jupiter.api.Test;
import sun.misc.Signal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A real SIGHUP, raised in this JVM, reaches the action; unless the process was started with it ignored. */
class HangupSignalTest {

    @Test
    void aSighupRunsTheActionUnlessTheProcessIgnoresIt() throws Exception {
        CountDownLatch reloaded = new CountDownLatch(1);
        boolean ignoredAtStart = IgnoredSignals.ignored(IgnoredSignals.SIGHUP);

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
}
