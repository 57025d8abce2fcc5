package dev.kgpu.discovery.run;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.OncePerCause;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.agent.Supervisor.Control;
import dev.kgpu.agent.Supervisor.Ending;
import dev.kgpu.agent.Supervisor.ReloadOutcome;
import dev.kgpu.discovery.publish.LabelSink;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Discovery's lifecycle, run by the agent kit's {@link Supervisor} on its one thread: a labelling pass right after
 * start, then whenever the next one is due:
 *
 * <ul>
 *   <li>after a published pass, in {@code GFD_SLEEP_INTERVAL} (never, for {@code infinite});
 *   <li>after a failed pass (API server unavailable, 409, 5xx, an unlabelable node), with exponential
 *       backoff, keeping the labels published before;
 *   <li>while NVML is unavailable ({@code FAIL_ON_INIT_ERROR=false}), with the same backoff, until the
 *       driver answers;
 *   <li>on SIGHUP at once, after reloading the configuration (a bad one is kept out, and the pass still runs).
 * </ul>
 *
 * A oneshot run ends after its pass; a fatal pass (NVML unusable with {@code FAIL_ON_INIT_ERROR=true}),
 * a failed oneshot pass or anything unexpected thrown, an {@link Error} included, ends the run with exit
 * code 1; only a stop or a published oneshot pass ends it with 0.
 */
public final class DiscoveryHandler implements Supervisor.Handler<DiscoverySettings, DiscoveryHandler.Due> {

    /** The supervisor thread's name. */
    public static final String THREAD = "discovery-supervisor";

    private static final System.Logger LOG = System.getLogger(DiscoveryHandler.class.getName());

    /** Discovery's one event: the next pass is due (the first, or a timer's). */
    public enum Due { PASS }

    private final LabelingPass pass;
    private final PassStatus status;
    private final OncePerCause failures = new OncePerCause(LOG, "the labelling pass succeeds again");
    private final OncePerCause nvml = new OncePerCause(LOG, "NVML answers again");
    private Control<Due> control;
    private DiscoverySettings settings;
    private Backoff failureRetry;
    private Backoff nvmlRetry;
    private Supervisor.Timer next;
    private Runnable afterFirstPublished;

    /**
     * @param afterFirstPublished runs once, on the supervisor thread, right after the first pass that published (a
     *                            daemon's only: a oneshot run ends there); the entry point hands a native executable's
     *                            start-up pages back with it, once the first labels are out
     */
    public DiscoveryHandler(LabelingPass pass, PassStatus status, Runnable afterFirstPublished) {
        this.pass = Objects.requireNonNull(pass, "pass");
        this.status = Objects.requireNonNull(status, "status");
        this.afterFirstPublished = Objects.requireNonNull(afterFirstPublished, "afterFirstPublished");
    }

    /**
     * Starts labelling with {@code settings}: the first pass runs at once.
     *
     * @param reload              reads the configuration again on SIGHUP; throws a {@code ConfigException} naming the
     *                            bad field, and discovery then keeps the configuration it has
     * @param clock               the status's timestamps
     * @param afterFirstPublished runs once, right after a daemon's first published pass
     */
    public static Supervisor<DiscoverySettings, Due> start(LabelingPass pass, PassStatus status,
                                                           Supplier<DiscoverySettings> reload, InstantSource clock,
                                                           DiscoverySettings settings, Runnable afterFirstPublished) {
        return Supervisor.builder(THREAD, new DiscoveryHandler(pass, status, afterFirstPublished))
                .reloads("the configuration in use", reload)
                .clock(clock)
                .start(settings);
    }

    /** Starts labelling with {@code settings}, with nothing to run after the first published pass. */
    public static Supervisor<DiscoverySettings, Due> start(LabelingPass pass, PassStatus status,
                                                           Supplier<DiscoverySettings> reload, InstantSource clock,
                                                           DiscoverySettings settings) {
        return start(pass, status, reload, clock, settings, () -> { });
    }

    @Override
    public void start(DiscoverySettings initial, Control<Due> control) {
        this.control = control;
        this.settings = initial;
        this.failureRetry = new Backoff(initial.retry());
        this.nvmlRetry = new Backoff(initial.retry());
        control.post(Due.PASS); // not here: start returns at once, and a pass may wait long for the API server
    }

    @Override
    public void on(Due event) {
        runPass();
    }

    @Override
    public ReloadOutcome reload(DiscoverySettings reloaded) {
        if (!sinkSettings(reloaded).equals(sinkSettings(settings))) {
            pass.forgetSink();
        }
        settings = reloaded;
        runPass();
        return ReloadOutcome.APPLIED;
    }

    @Override
    public void reloadRejected(String reason) {
        runPass(); // SIGHUP relabels, with the configuration in use
    }

    @Override
    public void stop(Ending why) {
        try {
            if (why instanceof Ending.Failed(Throwable error)) {
                status.set(false, "unexpected error: " + error, control.now());
            }
        } finally {
            pass.close();
        }
    }

    private void runPass() {
        if (next != null) {
            next.cancel();
            next = null;
        }
        PassResult result = pass.run(settings);
        switch (result) {
            case PassResult.Fatal(String reason) -> {
                status.set(false, reason, control.now());
                control.exit(1, reason);
            }
            case PassResult.Failed(String reason) -> {
                Duration wait = failureRetry.next();
                status.set(false, reason, control.now());
                if (settings.oneshot()) {
                    control.exit(1, "the labelling pass failed: " + reason);
                    return;
                }
                // once per cause: an API server down for an hour is one line, not one per retry
                failures.occurred(Level.WARNING, reason, "the labelling pass failed, keeping the labels published"
                        + " before; retrying in {0}: {1}", wait, reason);
                next = control.after(wait, Due.PASS);
            }
            case PassResult.Published published -> published(published);
        }
    }

    private void published(PassResult.Published published) {
        failures.cleared();
        failureRetry.reset();
        report(published);
        if (settings.oneshot()) {
            control.exit(0, "labelled once (GFD_ONESHOT)");
            return;
        }
        if (published.nvmlProblem().isPresent()) {
            Duration wait = nvmlRetry.next();
            String problem = published.nvmlProblem().get();
            nvml.occurred(Level.WARNING, problem, "no working driver: NVML is unavailable ({0}); published the labels"
                    + " that need none, reporting not ready; trying NVML again with backoff (next in {1})", problem, wait);
            next = control.after(wait, Due.PASS);
        } else {
            nvml.cleared();
            nvmlRetry.reset();
            settings.sleepInterval().ifPresent(interval -> next = control.after(interval, Due.PASS));
        }
        Runnable once = afterFirstPublished;
        afterFirstPublished = () -> { };
        once.run();
    }

    private void report(PassResult.Published published) {
        boolean ready = published.nvmlProblem().isEmpty();
        String detail = ready
                ? published.labels().size() + " labels published to the " + published.sink() + " sink"
                : "no working driver (NVML unavailable: " + published.nvmlProblem().get() + "); only the labels that need"
                        + " no driver are published";
        status.set(ready, detail, control.now());
        if (published.outcome() == LabelSink.Outcome.WROTE) {
            LOG.log(Level.INFO, "published {0,number,#} labels to the {1} sink:\n{2}", published.labels().size(),
                    published.sink(), published.labels().toFeatureFile().stripTrailing());
        } else {
            LOG.log(Level.DEBUG, "labels unchanged; nothing written to the {0} sink", published.sink());
        }
    }

    private static Object sinkSettings(DiscoverySettings s) {
        return List.of(s.sink(), s.nodeName(), s.namespace(), s.podName(), s.outputFile(), s.removeOutputFileOnExit());
    }
}
