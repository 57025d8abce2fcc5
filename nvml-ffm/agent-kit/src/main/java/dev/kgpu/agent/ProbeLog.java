package dev.kgpu.agent;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Logs a health probe's answer when it changes, rather than at every probe: the kubelet probes every few
 * seconds, and a node that stays not ready for an hour should say so once, not a thousand times. The first
 * answer is logged at INFO, a later fall to DOWN at WARNING with its reason, a return to UP at INFO. Agents
 * turn off SmallRye Health's own line per failing probe ({@code io.smallrye.health} at WARN).
 *
 * <pre>{@code
 * private final ProbeLog log = new ProbeLog("readiness", "registered with the kubelet");
 * public HealthCheckResponse call() {
 *     PluginStatus status = plugin.status();
 *     log.answered(status.ready(), () -> status.problemText());
 *     ...
 * }
 * }</pre>
 *
 * <p>Thread-safe: probes may come on several threads at once; each change is logged once.
 */
public final class ProbeLog {

    private static final System.Logger LOG = System.getLogger(ProbeLog.class.getName());

    private final String kind;
    private final String name;
    private final AtomicReference<Boolean> last = new AtomicReference<>();

    /**
     * @param kind {@code readiness} or {@code liveness}
     * @param name the check's name, as in its response
     */
    public ProbeLog(String kind, String name) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.name = Objects.requireNonNull(name, "name");
    }

    /** One probe's answer; logs it when it differs from the previous one. */
    public void answered(boolean up, Supplier<String> reason) {
        Boolean before = last.getAndSet(up);
        if (before != null && before == up) {
            return;
        }
        if (up) {
            LOG.log(System.Logger.Level.INFO, "{0} ''{1}'' is UP", kind, name);
        } else {
            LOG.log(before == null ? System.Logger.Level.INFO : System.Logger.Level.WARNING, "{0} ''{1}'' is DOWN: {2}",
                    kind, name, reason.get());
        }
    }
}
