package dev.kgpu.plugin.app;

import org.junit.jupiter.api.Test;
import sun.misc.Signal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A real SIGHUP reaches the reload action (the supervisor's reload in production). */
class SignalsTest {

    @Test
    void sighupRunsTheAction() throws InterruptedException {
        CountDownLatch reloaded = new CountDownLatch(1);
        Signals.onHangup(reloaded::countDown);

        Signal.raise(new Signal("HUP"));

        assertThat(reloaded.await(10, TimeUnit.SECONDS)).isTrue();
    }
}
