package dev.kgpu.exporter.pods;

import dev.kgpu.agent.Backoff;
import dev.kgpu.exporter.config.GpuIdType;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Keeps the pod attribution current: asks the kubelet once per collection, and when that fails keeps the
 * last mapping it got, saying so once per run of failures. When the kubelet rate-limits the call
 * ({@code ResourceExhausted}) it backs off (1 s, doubling to at most 60 s) before asking again.
 *
 * <p>Not thread-safe: the collection thread owns it.
 */
public final class PodAttributionTracker {

    private static final System.Logger LOG = System.getLogger(PodAttributionTracker.class.getName());
    /** After the kubelet's rate limit refuses a call: 1 s, doubling up to a minute. */
    static final Backoff.Policy RATE_LIMIT_BACKOFF = new Backoff.Policy(Duration.ofSeconds(1), Duration.ofSeconds(60));

    /** How one refresh went, for the exporter's own metrics. */
    public enum Outcome { OK, SOCKET_MISSING, RATE_LIMITED, UNAVAILABLE, FAILED, BACKING_OFF }

    private final PodResourcesSource source;
    private final Set<String> extraResourceNames;
    private final GpuIdType idType;
    private final boolean virtualGpus;
    private final InstantSource clock;
    private final Consumer<Outcome> outcomes;

    private DeviceAttribution current = DeviceAttribution.none();
    private Instant currentSince;
    private boolean failing;
    private final Backoff rateLimited = new Backoff(RATE_LIMIT_BACKOFF);
    private Instant nextAttempt = Instant.MIN;

    public PodAttributionTracker(PodResourcesSource source, Set<String> extraResourceNames, GpuIdType idType,
                                 boolean virtualGpus, InstantSource clock, Consumer<Outcome> outcomes) {
        this.source = source;
        this.extraResourceNames = Set.copyOf(extraResourceNames);
        this.idType = idType;
        this.virtualGpus = virtualGpus;
        this.clock = clock;
        this.outcomes = outcomes;
    }

    /** Asks the kubelet (unless backing off) and returns the attribution to use for this collection. */
    public DeviceAttribution refresh(MigInstanceLookup migs) {
        Instant now = clock.instant();
        if (now.isBefore(nextAttempt)) {
            outcomes.accept(Outcome.BACKING_OFF);
            return current;
        }
        try {
            List<ContainerDevices> devices = source.list();
            current = DeviceAttribution.from(devices, extraResourceNames, idType, virtualGpus, migs);
            currentSince = now;
            rateLimited.reset();
            nextAttempt = Instant.MIN;
            if (failing) {
                LOG.log(Level.INFO, "the kubelet's pod resources answer again; pod labels are current");
                failing = false;
            }
            outcomes.accept(Outcome.OK);
        } catch (PodResourcesException e) {
            Outcome outcome = switch (e) {
                case PodResourcesException.SocketMissing m -> Outcome.SOCKET_MISSING;
                case PodResourcesException.RateLimited r -> Outcome.RATE_LIMITED;
                case PodResourcesException.Unavailable u -> Outcome.UNAVAILABLE;
                case PodResourcesException.Failed f -> Outcome.FAILED;
            };
            if (outcome == Outcome.RATE_LIMITED) {
                nextAttempt = now.plus(rateLimited.next());
            }
            if (!failing) {
                failing = true;
                LOG.log(Level.WARNING, "could not list the kubelet''s pod resources ({0}); {1} until it answers again",
                        e.getMessage(), currentSince == null ? "series carry no pod labels"
                                : "keeping the pod labels listed at " + currentSince);
            }
            outcomes.accept(outcome);
        }
        return current;
    }
}
