package dev.kgpu.agent;

import dev.kgpu.agent.testing.IgnoredSignals;
import dev.kgpu.agent.testing.LogLines;
import dev.kgpu.agent.Supervisor.Control;
import dev.kgpu.agent.Supervisor.Ending;
import dev.kgpu.agent.Supervisor.ReloadOutcome;
import dev.kgpu.config.InvalidConfigException;
import org.junit.jupiter.api.Test;
import sun.misc.Signal;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine with a handler that records what reaches it, and on which thread: ordering, timers, SIGHUP's reload
 * applied and rejected, stop from many threads, the exit status of an exit, an exception and an {@link Error}.
 */
class SupervisorTest {

    static final Duration WAIT = Duration.ofSeconds(10);
    static final String THREAD = "test-supervisor";

    /** Records every call with its thread; each event runs {@code onEvent} (to throw, block or exit). */
    static class Recorder implements Supervisor.Handler<String, String> {
        final BlockingQueue<String> calls = new LinkedBlockingQueue<>();
        final List<String> threads = new CopyOnWriteArrayList<>();
        final AtomicReference<Ending> ending = new AtomicReference<>();
        final AtomicInteger stops = new AtomicInteger();
        volatile Control<String> control;
        volatile Function<String, ReloadOutcome> onReload = settings -> ReloadOutcome.APPLIED;
        volatile Consumer<String> onEvent = event -> { };
        volatile Consumer<Control<String>> onStart = control -> { };
        volatile boolean interruptedInStop;

        @Override
        public void start(String settings, Control<String> control) {
            this.control = control;
            record("start " + settings);
            onStart.accept(control);
        }

        @Override
        public void on(String event) {
            record("on " + event);
            onEvent.accept(event);
        }

        @Override
        public ReloadOutcome reload(String candidate) {
            record("reload " + candidate);
            return onReload.apply(candidate);
        }

        @Override
        public void reloadRejected(String reason) {
            record("rejected " + reason);
        }

        @Override
        public void stop(Ending why) {
            interruptedInStop = Thread.currentThread().isInterrupted();
            stops.incrementAndGet();
            ending.set(why);
            record("stop " + why.getClass().getSimpleName());
        }

        void record(String call) {
            threads.add(Thread.currentThread().getName());
            calls.add(call);
        }

        String next() throws InterruptedException {
            String call = calls.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(call).as("a call to the handler within %s", WAIT).isNotNull();
            return call;
        }
    }

    static Supervisor<String, String> start(Recorder handler) {
        return Supervisor.builder(THREAD, handler).start("v1");
    }

    @Test
    void startRunsFirstAndEventsFromAnyThreadArriveInOrderOnTheAgentThread() throws Exception {
        Recorder handler = new Recorder();
        Supervisor<String, String> supervisor = start(handler);
        // start has run when start returns
        assertThat(handler.calls.poll()).isEqualTo("start v1");

        Thread poster = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 500; i++) {
                supervisor.post("e" + i);
            }
        });
        poster.join();
        List<String> events = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            events.add(handler.next());
        }

        assertThat(events).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 500).mapToObj(i -> "on e" + i).toList());
        assertThat(handler.threads).containsOnly(THREAD);
        assertThat(supervisor.stop(WAIT)).isTrue();
        assertThat(supervisor.awaitExit()).isZero();
    }

    @Test
    void timersFireInTheOrderTheyAreDueAndACancelledOneNever() throws Exception {
        Recorder handler = new Recorder();
        AtomicReference<Supervisor.Timer> cancelled = new AtomicReference<>();
        handler.onStart = control -> {
            control.after(Duration.ofHours(1), "in an hour");
            control.after(Duration.ofMillis(150), "late");
            control.after(Duration.ofMillis(10), "early");
            cancelled.set(control.after(Duration.ofMillis(50), "cancelled"));
            assertThat(cancelled.get().cancel()).isTrue();
            assertThat(cancelled.get().cancel()).isFalse();
        };
        Supervisor<String, String> supervisor = start(handler);
        assertThat(handler.next()).isEqualTo("start v1");

        assertThat(handler.next()).isEqualTo("on early");
        assertThat(handler.next()).isEqualTo("on late");
        // set from another thread while the agent thread waits for the hour's timer: it wakes for this one
        Supervisor.Timer fromOutside = supervisor.control().after(Duration.ofMillis(10), "outside");
        assertThat(handler.next()).isEqualTo("on outside");
        assertThat(fromOutside.cancel()).as("delivered already").isFalse();
        assertThat(handler.calls).isEmpty();
        assertThat(handler.threads).containsOnly(THREAD);
        supervisor.stop(WAIT);
        assertThat(handler.calls).containsExactly("stop Stopped");
    }

    @Test
    void aTimerCancelledFromAnotherThreadIsNotDeliveredEvenWhenItWasDue() throws Exception {
        Recorder handler = new Recorder();
        CountDownLatch release = new CountDownLatch(1);
        handler.onEvent = event -> {
            if (event.equals("busy")) {
                await(release);
            }
        };
        Supervisor<String, String> supervisor = start(handler);
        handler.next();
        supervisor.post("busy");
        assertThat(handler.next()).isEqualTo("on busy");
        // the agent thread is busy: the timer comes due meanwhile, and is cancelled before the thread sees it
        long set = System.nanoTime();
        Supervisor.Timer timer = supervisor.control().after(Duration.ofMillis(1), "cancelled");
        while (System.nanoTime() - set < Duration.ofMillis(2).toNanos()) {
            Thread.onSpinWait();
        }

        assertThat(timer.cancel()).isTrue();
        release.countDown();
        supervisor.post("sentinel");

        assertThat(handler.next()).isEqualTo("on sentinel");
        supervisor.stop(WAIT);
        assertThat(handler.calls).containsExactly("stop Stopped");
    }

    @Test
    void aReloadHandsWhatTheLoaderReadToTheHandler() throws Exception {
        Recorder handler = new Recorder();
        AtomicInteger loads = new AtomicInteger();
        try (LogLines log = new LogLines(Supervisor.class)) {
            Supervisor<String, String> supervisor = Supervisor.builder(THREAD, handler)
                    .reloads("the running config", () -> "v" + (1 + loads.incrementAndGet()))
                    .start("v1");
            handler.next();

            supervisor.reload();

            assertThat(handler.next()).isEqualTo("reload v2");
            supervisor.stop(WAIT);
            assertThat(handler.calls).containsExactly("stop Stopped");
            assertThat(log.lines()).containsExactly("FINE SIGHUP: reloading the running config");
        }
    }

    @Test
    void aBadConfigAtReloadKeepsTheRunningOneSaysWhyOnceAndTellsTheHandler() throws Exception {
        Recorder handler = new Recorder();
        try (LogLines log = new LogLines(Supervisor.class)) {
            Supervisor<String, String> supervisor = Supervisor.builder(THREAD, handler)
                    .reloads("the running config", () -> {
                        throw InvalidConfigException.of("flags.migStrategy", "dual", "must be one of none, single, mixed");
                    })
                    .start("v1");
            handler.next();

            supervisor.reload();

            String rejected = handler.next();
            assertThat(rejected).startsWith("rejected invalid configuration: ").contains("flags.migStrategy", "dual");
            supervisor.post("still running");
            assertThat(handler.next()).isEqualTo("on still running");
            supervisor.stop(WAIT);
            assertThat(log.lines()).containsExactly("FINE SIGHUP: reloading the running config",
                    "SEVERE SIGHUP: keeping the running config: " + rejected.substring("rejected ".length()));
        }
    }

    @Test
    void settingsTheHandlerRejectsAreReportedLikeABadFile() throws Exception {
        Recorder handler = new Recorder();
        handler.onReload = candidate -> new ReloadOutcome.Rejected("4 GPUs cannot be split in 3 replicas of " + candidate);
        try (LogLines log = new LogLines(Supervisor.class)) {
            Supervisor<String, String> supervisor = Supervisor.builder(THREAD, handler)
                    .reloads("the running config", () -> "v2")
                    .start("v1");
            handler.next();

            supervisor.reload();

            assertThat(handler.next()).isEqualTo("reload v2");
            assertThat(handler.next()).isEqualTo("rejected 4 GPUs cannot be split in 3 replicas of v2");
            supervisor.stop(WAIT);
            assertThat(log.lines()).contains("SEVERE SIGHUP: keeping the running config: 4 GPUs cannot be split in 3"
                    + " replicas of v2");
        }
    }

    @Test
    void aRealSighupReloads() throws Exception {
        if (IgnoredSignals.ignored(IgnoredSignals.SIGHUP)) {
            return; // started under nohup: HangupSignalTest covers what the JVM then does
        }
        Recorder handler = new Recorder();
        Supervisor<String, String> supervisor = Supervisor.builder(THREAD, handler)
                .reloads("the running config", () -> "from SIGHUP")
                .start("v1");
        handler.next();

        Signal.raise(new Signal("HUP"));

        assertThat(handler.next()).isEqualTo("reload from SIGHUP");
        supervisor.stop(WAIT);
    }

    @Test
    void aSighupWhileTheHandlerStartsReloadsOnceItHasStarted() throws Exception {
        if (IgnoredSignals.ignored(IgnoredSignals.SIGHUP)) {
            return; // started under nohup: HangupSignalTest covers what the JVM then does
        }
        Recorder handler = new Recorder();
        // as a config manager does that sends SIGHUP as soon as the agent's ready file appears, before start returned
        handler.onStart = control -> Signal.raise(new Signal("HUP"));
        Supervisor<String, String> supervisor = Supervisor.builder(THREAD, handler)
                .reloads("the running config", () -> "from SIGHUP")
                .start("v1");

        assertThat(handler.next()).isEqualTo("start v1");
        assertThat(handler.next()).isEqualTo("reload from SIGHUP");
        supervisor.stop(WAIT);
    }

    @Test
    void anAgentWithoutALoaderRefusesToReload() {
        Supervisor<String, String> supervisor = start(new Recorder());
        try {
            org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(supervisor::reload)
                    .withMessageContaining("reloads nothing");
        } finally {
            supervisor.stop(WAIT);
        }
    }

    @Test
    void manyThreadsStoppingWaitForTheSameSingleStop() throws Exception {
        Recorder handler = new Recorder();
        CountDownLatch stopping = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        handler.onEvent = event -> {
            stopping.countDown();
            await(release);
        };
        Supervisor<String, String> supervisor = start(handler);
        supervisor.post("slow");
        stopping.await();
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> stops = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                stops.add(callers.submit(() -> supervisor.stop(WAIT)));
            }
            assertThat(supervisor.running()).isTrue();
            release.countDown();

            for (Future<Boolean> stop : stops) {
                assertThat(stop.get()).isTrue();
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(handler.stops).hasValue(1);
        assertThat(handler.ending.get()).isEqualTo(new Ending.Stopped());
        assertThat(handler.calls).containsExactly("start v1", "on slow", "stop Stopped");
        assertThat(supervisor.running()).isFalse();
        assertThat(supervisor.awaitExit()).isZero();
        assertThat(supervisor.stop(WAIT)).as("stopped already").isTrue();
        supervisor.post("ignored once ended");
        assertThat(handler.calls).hasSize(3);
    }

    @Test
    void anAgentThatAsksToExitEndsWithItsStatusAfterItsStop() throws Exception {
        Recorder handler = new Recorder();
        handler.onEvent = event -> handler.control.exit(3, "devices unreadable (failOnInitError is true)");
        try (LogLines log = new LogLines(Supervisor.class)) {
            Supervisor<String, String> supervisor = start(handler);

            supervisor.post("give up");
            supervisor.post("never delivered");

            assertThat(supervisor.awaitExit(WAIT)).isEqualTo(OptionalInt.of(3));
            assertThat(handler.ending.get()).isEqualTo(new Ending.Exited(3, "devices unreadable (failOnInitError is true)"));
            assertThat(handler.calls).containsExactly("start v1", "on give up", "stop Exited");
            assertThat(log.lines()).containsExactly("SEVERE exiting with status 3: devices unreadable (failOnInitError is"
                    + " true)");
        }
    }

    @Test
    void anExitFromAnotherThreadIsQueuedLikeAnEvent() throws Exception {
        Recorder handler = new Recorder();
        Supervisor<String, String> supervisor = start(handler);

        handler.control.exit(0, "labelled once (oneshot)");

        assertThat(supervisor.awaitExit(WAIT)).isEqualTo(OptionalInt.of(0));
        assertThat(handler.ending.get()).isInstanceOf(Ending.Exited.class);
    }

    @Test
    void anErrorThrownByTheHandlerIsLoggedOnceStopsItAndExitsOneNeverZero() throws Exception {
        Recorder handler = new Recorder();
        OutOfMemoryError error = new OutOfMemoryError("Java heap space (thrown by the test)");
        handler.onEvent = event -> {
            throw error;
        };
        try (LogLines log = new LogLines(Supervisor.class)) {
            Supervisor<String, String> supervisor = start(handler);

            supervisor.post("exhausting");

            assertThat(supervisor.awaitExit(WAIT)).isEqualTo(OptionalInt.of(1));
            assertThat(handler.ending.get()).isEqualTo(new Ending.Failed(error));
            assertThat(handler.stops).hasValue(1);
            assertThat(log.lines()).containsExactly("SEVERE the agent stops on an unexpected error [" + error + "]");
        }
    }

    @Test
    void anExceptionInStartStopsTheAgentWithStatusOne() {
        Recorder handler = new Recorder();
        handler.onStart = control -> {
            throw new IllegalStateException("no kubelet socket folder");
        };

        Supervisor<String, String> supervisor = start(handler);

        assertThat(supervisor.awaitExit(WAIT)).isEqualTo(OptionalInt.of(1));
        assertThat(handler.calls).containsExactly("start v1", "stop Failed");
    }

    @Test
    void aStopThatThrowsMakesTheStatusOne() {
        Supervisor<String, String> supervisor = Supervisor.builder(THREAD, new Supervisor.Handler<String, String>() {
            @Override
            public void start(String settings, Control<String> control) {
            }

            @Override
            public void on(String event) {
            }

            @Override
            public void stop(Ending why) {
                throw new IllegalStateException("the socket could not be removed");
            }
        }).start("v1");

        assertThat(supervisor.stop(WAIT)).isTrue();
        assertThat(supervisor.awaitExit()).isEqualTo(1);
    }

    @Test
    void withInterruptOnStopAStopInterruptsTheWorkInProgressButNotTheHandlersStop() throws Exception {
        Recorder handler = new Recorder();
        CountDownLatch working = new CountDownLatch(1);
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        handler.onEvent = event -> {
            working.countDown();
            try {
                Thread.sleep(Duration.ofMinutes(5));
                interrupted.set(false);
            } catch (InterruptedException e) {
                interrupted.set(true); // a pass in flight ends, and cleans up after itself
            }
        };
        Supervisor<String, String> supervisor = Supervisor.builder(THREAD, handler).interruptOnStop().start("v1");
        supervisor.post("a long pass");
        working.await();

        assertThat(supervisor.stop(WAIT)).isTrue();

        assertThat(interrupted.get()).isTrue();
        assertThat(handler.interruptedInStop).isFalse();
        assertThat(supervisor.awaitExit()).isZero();
    }

    @Test
    void aStopWaitsForTheReleaseWhichRunsAfterTheExitStatusIsKnown() throws Exception {
        CountDownLatch releasing = new CountDownLatch(1);
        CountDownLatch finishRelease = new CountDownLatch(1);
        Recorder handler = new Recorder() {
            @Override
            public void release() {
                record("release");
                releasing.countDown();
                await(finishRelease);
            }
        };
        Supervisor<String, String> supervisor = start(handler);
        handler.next();
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> stop = caller.submit(() -> supervisor.stop(WAIT));
            assertThat(releasing.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

            assertThat(supervisor.awaitExit(WAIT)).as("the status is known before the release").isEqualTo(OptionalInt.of(0));
            assertThat(stop).isNotDone();
            finishRelease.countDown();
            assertThat(stop.get()).isTrue();
        } finally {
            caller.shutdownNow();
        }
        assertThat(handler.calls).containsExactly("stop Stopped", "release");
    }

    @Test
    void afterAStopForTheProcesssExitNobodyWaitsForTheRelease() throws Exception {
        CountDownLatch finishRelease = new CountDownLatch(1);
        Recorder handler = new Recorder() {
            @Override
            public void release() {
                record("release");
                await(finishRelease);
            }
        };
        Supervisor<String, String> supervisor = start(handler);
        handler.next();
        try {
            supervisor.stopForExit();

            assertThat(supervisor.awaitExit(WAIT)).isEqualTo(OptionalInt.of(0));
            assertThat(handler.next()).isEqualTo("stop Stopped");
            assertThat(handler.next()).isEqualTo("release");
            assertThat(supervisor.stop(Duration.ofMillis(1))).as("the release still runs").isTrue();
        } finally {
            finishRelease.countDown();
        }
    }

    @Test
    void nowIsTheBuildersClock() {
        Instant fixed = Instant.parse("2025-01-02T03:04:05Z");
        Recorder handler = new Recorder();
        Supervisor<String, String> supervisor = Supervisor.builder(THREAD, handler).clock(InstantSource.fixed(fixed))
                .start("v1");

        assertThat(handler.control.now()).isEqualTo(fixed);
        supervisor.stop(WAIT);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
