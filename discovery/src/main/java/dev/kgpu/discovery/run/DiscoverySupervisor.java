package dev.kgpu.discovery.run;

import dev.kgpu.agent.Backoff;
import dev.kgpu.discovery.publish.LabelSink;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The one thread that owns discovery's lifecycle. It takes events from one queue (a SIGHUP's relabel,
 * the stop at shutdown) and otherwise wakes when the next pass is due:
 *
 * <ul>
 *   <li>after a published pass, in {@code GFD_SLEEP_INTERVAL} (never, for {@code infinite});
 *   <li>after a failed pass (API server unavailable, 409, 5xx, an unlabelable node), with exponential
 *       backoff, keeping the labels published before;
 *   <li>while NVML is unavailable ({@code FAIL_ON_INIT_ERROR=false}), with the same backoff, until the
 *       driver answers;
 *   <li>on SIGHUP at once, after reloading the configuration.
 * </ul>
 *
 * A oneshot run ends after its pass; a fatal pass (NVML unusable with {@code FAIL_ON_INIT_ERROR=true}),
 * a failed oneshot pass or anything unexpected thrown, an {@link Error} included, ends the run with exit
 * code 1; only a stop or a published oneshot pass ends it with 0.
 */
public final class DiscoverySupervisor {

    private static final System.Logger LOG = System.getLogger(DiscoverySupervisor.class.getName());
    private static final long NEVER = Long.MAX_VALUE;

    private enum Event { RELABEL, STOP }

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final LabelingPass pass;
    private final PassStatus status;
    private final Supplier<DiscoverySettings> reload;
    private final InstantSource clock;
    private DiscoverySettings settings;
    private Thread thread;
    private String lastNvmlProblem;
    private String lastFailure;

    /**
     * @param reload reads the configuration again on SIGHUP; throws {@link IllegalArgumentException} naming
     *               the bad field, and the supervisor then keeps the configuration it has
     */
    public DiscoverySupervisor(LabelingPass pass, PassStatus status, Supplier<DiscoverySettings> reload, InstantSource clock) {
        this.pass = Objects.requireNonNull(pass, "pass");
        this.status = Objects.requireNonNull(status, "status");
        this.reload = Objects.requireNonNull(reload, "reload");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Starts the supervisor thread; the first pass runs at once. */
    public synchronized void start(DiscoverySettings initial) {
        if (thread != null) {
            throw new IllegalStateException("the discovery supervisor was started twice");
        }
        settings = Objects.requireNonNull(initial, "initial");
        thread = Thread.ofPlatform().name("discovery-supervisor").start(this::loop);
    }

    /** Relabels at once after reloading the configuration (SIGHUP). */
    public void relabel() {
        events.add(Event.RELABEL);
    }

    /** Asks the supervisor to stop; {@link #awaitExit} then returns. */
    public void stop() {
        events.add(Event.STOP);
    }

    /** Blocks until the supervisor has stopped and returns the process exit code. */
    public int awaitExit() {
        return exit.join();
    }

    /** Waits up to {@code timeout} for the supervisor to stop; the exit code, or -1 when it still runs. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        try {
            return exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return -1;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private void loop() {
        Backoff failures = new Backoff(settings.retry());
        Backoff nvmlRetry = new Backoff(settings.retry());
        long nextPass = System.nanoTime();
        int code = 1; // until the loop ends as it should: whatever escapes it (an Error too) exits 1
        try {
            while (true) {
                Event event = nextEvent(nextPass);
                if (event == Event.STOP) {
                    code = 0;
                    break;
                }
                if (event == Event.RELABEL) {
                    reloadSettings();
                }
                PassResult result = pass.run(settings);
                long now = System.nanoTime();
                if (result instanceof PassResult.Fatal(String reason)) {
                    LOG.log(Level.ERROR, () -> String.format("discovery stops: %s", reason));
                    status.set(false, reason, clock.instant());
                    break;
                }
                if (result instanceof PassResult.Failed(String reason)) {
                    Duration wait = failures.next();
                    status.set(false, reason, clock.instant());
                    if (settings.oneshot()) {
                        LOG.log(Level.ERROR, () -> String.format("the labelling pass failed: %s", reason));
                        break;
                    }
                    // once per cause: an API server down for an hour is one line, not one per retry
                    LOG.log(reason.equals(lastFailure) ? Level.DEBUG : Level.WARNING, () -> String.format(
                            "the labelling pass failed, keeping the labels published before; retrying in %s: %s",
                            wait, reason));
                    lastFailure = reason;
                    nextPass = now + wait.toNanos();
                    continue;
                }
                PassResult.Published published = (PassResult.Published) result;
                if (lastFailure != null) {
                    LOG.log(Level.INFO, "the labelling pass succeeds again");
                    lastFailure = null;
                }
                failures.reset();
                report(published);
                if (settings.oneshot()) {
                    code = 0;
                    break;
                }
                if (published.nvmlProblem().isPresent()) {
                    Duration wait = nvmlRetry.next();
                    String problem = published.nvmlProblem().get();
                    if (!problem.equals(lastNvmlProblem)) {
                        LOG.log(Level.WARNING, () -> String.format("no working driver: NVML is unavailable (%s);"
                                        + " published the labels that need none, reporting not ready;"
                                        + " trying NVML again with backoff (next in %s)",
                                problem, wait));
                    } else {
                        LOG.log(Level.DEBUG, () -> String.format("NVML is still unavailable; next try in %s", wait));
                    }
                    lastNvmlProblem = problem;
                    nextPass = now + wait.toNanos();
                } else {
                    if (lastNvmlProblem != null) {
                        LOG.log(Level.INFO, "NVML answers again");
                    }
                    lastNvmlProblem = null;
                    nvmlRetry.reset();
                    nextPass = settings.sleepInterval().map(interval -> now + interval.toNanos()).orElse(NEVER);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            // an OutOfMemoryError too: the images' JVM exits at once on it (-XX:+ExitOnOutOfMemoryError)
            LOG.log(Level.ERROR, "discovery stops on an unexpected error", e);
            status.set(false, "unexpected error: " + e, clock.instant());
        } finally {
            try {
                pass.close();
            } finally {
                exit.complete(code);
            }
        }
    }

    private Event nextEvent(long nextPass) throws InterruptedException {
        if (nextPass == NEVER) {
            return events.take();
        }
        long wait = nextPass - System.nanoTime();
        return wait <= 0 ? events.poll() : events.poll(wait, TimeUnit.NANOSECONDS);
    }

    private void report(PassResult.Published published) {
        boolean ready = published.nvmlProblem().isEmpty();
        String detail = ready
                ? published.labels().size() + " labels published to the " + published.sink() + " sink"
                : "no working driver (NVML unavailable: " + published.nvmlProblem().get() + "); only the labels that need"
                        + " no driver are published";
        status.set(ready, detail, clock.instant());
        if (published.outcome() == LabelSink.Outcome.WROTE) {
            LOG.log(Level.INFO, () -> String.format("published %d labels to the %s sink:%n%s",
                    published.labels().size(), published.sink(), published.labels().toFeatureFile().stripTrailing()));
        } else {
            LOG.log(Level.DEBUG, () -> String.format("labels unchanged; nothing written to the %s sink",
                    published.sink()));
        }
    }

    private void reloadSettings() {
        LOG.log(Level.INFO, "SIGHUP: reloading the configuration and relabelling");
        try {
            DiscoverySettings reloaded = reload.get();
            if (!sinkSettings(reloaded).equals(sinkSettings(settings))) {
                pass.forgetSink();
            }
            settings = reloaded;
        } catch (IllegalArgumentException e) {
            LOG.log(Level.ERROR, () -> String.format("keeping the configuration in use: %s", e.getMessage()));
        }
    }

    private static Object sinkSettings(DiscoverySettings s) {
        return java.util.List.of(s.sink(), s.nodeName(), s.namespace(), s.podName(),
                s.outputFile(), s.removeOutputFileOnExit());
    }
}
