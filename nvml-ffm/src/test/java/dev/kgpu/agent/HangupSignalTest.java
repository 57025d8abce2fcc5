package dev.kgpu.agent;

import org.junit.jupiter.api.Test;
import sun.misc.Signal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A real SIGHUP, raised in this JVM, reaches the action. */
class HangupSignalTest {

    @Test
    void aSighupRunsTheAction() throws InterruptedException {
        CountDownLatch reloaded = new CountDownLatch(1);
        assertThat(HangupSignal.relayTo(reloaded::countDown)).isTrue();

        Signal.raise(new Signal("HUP"));

        assertThat(reloaded.await(10, TimeUnit.SECONDS)).isTrue();
    }
}
