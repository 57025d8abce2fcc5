package dev.kgpu.agent;

import dev.kgpu.agent.testing.IgnoredSignals;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import org.junit.jupiter.api.Test;
import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.ToIntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-off from an entry point into the framework's run, with a stand-in for Quarkus that, like Quarkus,
 * calls the application's run on the thread that called it.
 */
class LaunchTest {

    /** An agent's settings: its one setting, and how often the loader ran. */
    record Settings(String interval, int load) {
    }

    final AtomicInteger loads = new AtomicInteger();

    final Launch<Settings> launch = new Launch<>("kgpu-test", Settings.class, (args, environment) -> {
        if (List.of(args).contains("--help")) {
            throw new UsageRequestedException("Flags of kgpu-test: --interval");
        }
        String interval = args.length > 0 ? args[0] : environment.apply("INTERVAL");
        if (interval == null || !interval.endsWith("s")) {
            throw InvalidConfigException.of("INTERVAL", String.valueOf(interval), "must be a Go duration in seconds");
        }
        return new Settings(interval, loads.incrementAndGet());
    });

    @Test
    void mainBindsTheSettingsItReadForTheRunOnItsThreadAndLoadsOnceOnly() {
        AtomicReference<Launch.Launched<Settings>> seen = new AtomicReference<>();
        AtomicReference<Optional<Settings>> bean = new AtomicReference<>();
        AtomicReference<Optional<Settings>> otherThread = new AtomicReference<>();
        AtomicInteger status = new AtomicInteger(-1);

        launch.main(new String[] {"30s"}, status::set, settings -> {
            // the framework starts beans (on this thread), then calls run
            bean.set(Launch.bound(Settings.class));
            otherThread.set(CompletableFuture.supplyAsync(() -> Launch.bound(Settings.class)).join());
            status.set(launch.run(new String[] {"30s"}, name -> {
                throw new AssertionError("nothing is read again when main bound the settings");
            }, launched -> {
                seen.set(launched);
                return 7;
            }));
        });

        assertThat(status).hasValue(7);
        assertThat(seen.get().settings()).isEqualTo(new Settings("30s", 1));
        assertThat(bean.get()).hasValue(new Settings("30s", 1));
        assertThat(otherThread.get()).as("a ScopedValue is bound on its own thread only").isEmpty();
        assertThat(Launch.bound(Settings.class)).as("and only while the framework runs").isEmpty();
        assertThat(Launch.bound(String.class)).isEmpty();
        // SIGHUP reads them again from the same command line
        assertThat(seen.get().reload().get()).isEqualTo(new Settings("30s", 2));
    }

    @Test
    void aBadSettingEndsMainWithOneLineAndNeverStartsTheFramework() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream before = System.err;
        AtomicInteger status = new AtomicInteger(-1);
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            launch.main(new String[] {"30m"}, status::set, settings -> {
                throw new AssertionError("the framework must not start");
            });
        } finally {
            System.setErr(before);
        }

        assertThat(status).hasValue(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("kgpu-test: invalid configuration: INTERVAL was"
                + " '30m' but it must be a Go duration in seconds\n");
    }

    @Test
    void withoutMainRunReadsTheSettingsFromTheEnvironmentItIsGiven() {
        Function<String, String> quarkusConfig = Map.of("INTERVAL", "60s")::get;
        AtomicReference<Launch.Launched<Settings>> seen = new AtomicReference<>();

        int status = launch.run(new String[0], quarkusConfig, launched -> {
            seen.set(launched);
            return 0;
        });

        assertThat(status).isZero();
        assertThat(seen.get().settings()).isEqualTo(new Settings("60s", 1));
        assertThat(seen.get().reload().get()).isEqualTo(new Settings("60s", 2));
    }

    @Test
    void withoutMainABadSettingIsPrintedAndItsStatusReturned() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream before = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int status;
        try {
            status = launch.run(new String[0], name -> null, launched -> {
                throw new AssertionError("the agent must not start");
            });
        } finally {
            System.setErr(before);
        }

        assertThat(status).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("kgpu-test: invalid configuration: INTERVAL");
    }

    @Test
    void aSupervisorStartedUnderMainStopsOnSigtermAndTheEntryPointReturnsItsStatus() throws Exception {
        assertThat(IgnoredSignals.ignored(IgnoredSignals.SIGTERM)).as("this test JVM was started with SIGTERM ignored").isFalse();
        SupervisorTest.Recorder handler = new SupervisorTest.Recorder();

        int status = runUnderMain(launched -> {
            Supervisor<String, String> supervisor = Supervisor.builder(SupervisorTest.THREAD, handler)
                    .start(launched.settings().interval());
            Signal.raise(new Signal("TERM")); // as the kubelet stops a container
            return supervisor.awaitExit();
        });

        assertThat(status).isZero();
        assertThat(handler.calls).containsExactly("start 30s", "stop Stopped");
    }

    @Test
    void aSigtermWhileTheHandlerStartsStopsItOnceItHasStartedAndTheEntryPointReturnsZero() throws Exception {
        assertThat(IgnoredSignals.ignored(IgnoredSignals.SIGTERM)).as("this test JVM was started with SIGTERM ignored").isFalse();
        SupervisorTest.Recorder handler = new SupervisorTest.Recorder();
        String jvms = sigtermHandler().toString();
        AtomicReference<String> whileStarting = new AtomicReference<>();
        handler.onStart = control -> {
            // whose SIGTERM it is while the handler starts (the signal is dispatched on another thread, so only this
            // tells, every time, whether a SIGTERM now would reach the agent or end the JVM with status 143)
            whileStarting.set(sigtermHandler().toString());
            // as the kubelet stops a container whose agent has served its socket but not yet returned from its start
            Signal.raise(new Signal("TERM"));
        };

        int status = runUnderMain(launched -> Supervisor.builder(SupervisorTest.THREAD, handler)
                .start(launched.settings().interval())
                .awaitExit());

        // sun.misc.Signal wraps the handler anew at each call: the same handler prints the same
        assertThat(whileStarting.get()).as("SIGTERM's handler while the agent starts").isNotEqualTo(jvms);
        assertThat(status).isZero();
        assertThat(handler.calls).containsExactly("start 30s", "stop Stopped");
    }

    @Test
    void aSupervisorStartedWithoutMainLeavesSigtermAlone() {
        SignalHandler before = sigtermHandler();
        Supervisor<String, String> supervisor = Supervisor.builder(SupervisorTest.THREAD, new SupervisorTest.Recorder())
                .start("v1");
        try {
            SignalHandler now = Signal.handle(new Signal("TERM"), before);
            // sun.misc.Signal wraps the handler anew at each call: the same handler prints the same
            assertThat(now).as("dev mode and tests keep the JVM's SIGTERM").hasToString(before.toString());
        } finally {
            supervisor.stop(SupervisorTest.WAIT);
        }
    }

    /**
     * Runs {@code agent} as the entry point launches it (settings from {@code 30s}) and returns the status it exits
     * with; SIGTERM's handler is the test JVM's own again afterwards.
     */
    private int runUnderMain(ToIntFunction<Launch.Launched<Settings>> agent) {
        SignalHandler jvms = sigtermHandler();
        AtomicInteger status = new AtomicInteger(-1);
        try {
            launch.main(new String[] {"30s"}, status::set,
                    settings -> status.set(launch.run(new String[0], name -> null, agent)));
        } finally {
            Signal.handle(new Signal("TERM"), jvms);
        }
        return status.get();
    }

    /** SIGTERM's handler now: sun.misc.Signal tells it only by replacing it, so it is put straight back. */
    private static SignalHandler sigtermHandler() {
        SignalHandler now = Signal.handle(new Signal("TERM"), SignalHandler.SIG_DFL);
        Signal.handle(new Signal("TERM"), now);
        return now;
    }
}
