package dev.kgpu.validator.core;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Runs one CUDA sample pod to its end the way NVIDIA's validator does: delete any leftover sample pod of the
 * same kind on the node, create the pod, poll its phase every {@code interval} until it succeeds, fails or
 * the wait runs out ({@code waitTries} polls, NVIDIA's 60 x 5 s), read its log for {@code Test PASSED}, and
 * delete the pod whatever happened.
 *
 * <p>API errors that may pass (no answer, 429, 5xx) are retried every {@code interval} within the same
 * deadline; any other API error fails at once with {@link Layer#API}.
 */
public final class SamplePodRunner {

    /** What vectorAdd prints on success. */
    public static final String PASS_MARKER = "Test PASSED";

    private static final System.Logger LOG = System.getLogger(SamplePodRunner.class.getName());
    private static final int DELETE_ATTEMPTS = 5;

    private final Cluster cluster;
    private final InstantSource clock;
    private final Sleeper sleeper;
    private final Duration interval;
    private final int waitTries;

    public SamplePodRunner(Cluster cluster, InstantSource clock, Sleeper sleeper, Duration interval, int waitTries) {
        this.cluster = cluster;
        this.clock = clock;
        this.sleeper = sleeper;
        this.interval = interval;
        this.waitTries = waitTries;
    }

    /** How long one run may wait for its pod. */
    public Duration timeout() {
        return interval.multipliedBy(waitTries);
    }

    /**
     * Runs the pod; returns a one-line summary on {@code Test PASSED}.
     *
     * @throws ComponentFailure naming the layer that failed
     */
    public String run(PodRequest request) throws InterruptedException {
        Instant deadline = clock.instant().plus(timeout());
        String ns = request.namespace();
        withRetries(deadline, "delete leftover " + request.appLabel() + " pods in namespace " + ns,
                () -> deleteLeftovers(request));
        int[] attempts = {0};
        String name = withRetries(deadline, "create pod " + request.generateName() + "* in namespace " + ns, () -> {
            if (attempts[0]++ > 0) {
                // A create that failed in transit may still have made a pod: never leave a second one behind.
                deleteLeftovers(request);
            }
            return cluster.createPod(request);
        });
        Exception primary = null;
        try {
            return awaitPassed(request, name, deadline);
        } catch (InterruptedException | RuntimeException e) {
            primary = e;
            throw e;
        } finally {
            // Delete even when interrupted (daemon shutdown): clear the flag for the deletion, then restore it.
            boolean interrupted = Thread.interrupted();
            try {
                delete(ns, name, primary);
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Deletes this kind of sample pod on this node, as NVIDIA does before creating its own. */
    private int deleteLeftovers(PodRequest request) {
        var names = cluster.podNames(request.namespace(), request.appLabel(), request.nodeName());
        for (String leftover : names) {
            LOG.log(System.Logger.Level.INFO, "deleting leftover sample pod {0}/{1}", request.namespace(), leftover);
            cluster.deletePod(request.namespace(), leftover);
        }
        return names.size();
    }

    private String awaitPassed(PodRequest request, String name, Instant deadline) throws InterruptedException {
        Instant started = clock.instant();
        Optional<PodState> last = Optional.empty();
        ClusterException lastError = null;
        while (true) {
            try {
                last = cluster.pod(request.namespace(), name);
                lastError = null;
                if (last.isEmpty()) {
                    throw new ComponentFailure(Layer.API, "pod " + name + " disappeared from namespace "
                            + request.namespace() + " before it finished (deleted by someone else?)");
                }
                PodState state = last.get();
                if (state.phase().equals("Succeeded")) {
                    return checkLog(request, state, deadline);
                }
                if (state.phase().equals("Failed")) {
                    throw PodDiagnosis.failed(state, lastLogLine(request, name));
                }
            } catch (ClusterException e) {
                if (!e.isTransient()) {
                    throw apiFailure("read pod " + request.namespace() + "/" + name, e);
                }
                lastError = e;
            }
            if (!clock.instant().isBefore(deadline)) {
                long waited = Duration.between(started, clock.instant()).toSeconds();
                if (lastError != null) {
                    throw apiFailure("read pod " + request.namespace() + "/" + name + " (for " + waited + " s)",
                            lastError);
                }
                throw PodDiagnosis.stuck(last.orElseThrow(), waited, warningEvents(request.namespace(), name));
            }
            sleeper.sleep(interval);
        }
    }

    private String checkLog(PodRequest request, PodState state, Instant deadline) throws InterruptedException {
        String log = withRetries(deadline, "read the log of pod " + request.namespace() + "/" + state.name(),
                () -> cluster.log(request.namespace(), state.name(), request.container()));
        if (!log.contains(PASS_MARKER)) {
            throw new ComponentFailure(Layer.RUNTIME, "pod " + state.name() + " succeeded but its log has no '"
                    + PASS_MARKER + "' (last line: '" + PodDiagnosis.lastLine(log) + "')");
        }
        return "pod " + state.name() + " ran the CUDA sample on " + state.nodeName().orElse(request.nodeName())
                + " with " + request.gpu().describe() + ": " + PASS_MARKER;
    }

    /** Best effort: the events only sharpen a failure that is already known. */
    private List<String> warningEvents(String namespace, String name) {
        try {
            return cluster.warningEvents(namespace, name);
        } catch (ClusterException e) {
            return List.of();
        }
    }

    private String lastLogLine(PodRequest request, String name) {
        try {
            return PodDiagnosis.lastLine(cluster.log(request.namespace(), name, request.container()));
        } catch (ClusterException e) {
            return "";
        }
    }

    private <T> T withRetries(Instant deadline, String what, Supplier<T> call) throws InterruptedException {
        while (true) {
            try {
                return call.get();
            } catch (ClusterException e) {
                if (!e.isTransient() || !clock.instant().isBefore(deadline)) {
                    throw apiFailure(what, e);
                }
                LOG.log(System.Logger.Level.WARNING, "{0} failed, retrying in {1} s: {2}",
                        what, interval.toSeconds(), e.getMessage());
                sleeper.sleep(interval);
            }
        }
    }

    /** Deletes the pod, retrying transient errors a few times; never lets a pod leak silently. */
    private void delete(String ns, String name, Exception primary) throws InterruptedException {
        ClusterException lastError = null;
        for (int attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
            try {
                cluster.deletePod(ns, name);
                return;
            } catch (ClusterException e) {
                lastError = e;
                if (!e.isTransient() || attempt == DELETE_ATTEMPTS) {
                    break;
                }
                sleeper.sleep(interval);
            }
        }
        ComponentFailure leak = apiFailure("delete sample pod " + ns + "/" + name + " (delete it by hand)", lastError);
        if (primary != null) {
            primary.addSuppressed(leak);
            LOG.log(System.Logger.Level.ERROR, leak.getMessage());
            return;
        }
        throw leak;
    }

    static ComponentFailure apiFailure(String what, ClusterException e) {
        String status = e.code() == 0 ? "no answer" : "HTTP " + e.code();
        return new ComponentFailure(Layer.API, "could not " + what + ": " + status + ": " + e.getMessage(), e);
    }
}
