package dev.kgpu.plugin.health;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The plugin's XID lines, rate-limited per GPU with counts: the first XID of a GPU logs at once; the ones
 * that follow within {@code window} are counted, and {@link #flush()} (each health check) sums them up in one
 * line once the window has passed. A storm of 1,000 XIDs on one GPU is two lines, not 1,000; nothing is
 * dropped unsaid. The health state itself never depends on these lines: every XID reaches the
 * {@link HealthTracker}.
 *
 * <p>Thread-safe: XIDs arrive on NVML's event thread, flushes on the health-check thread.
 */
final class XidLog {

    /** How long after a GPU's first logged XID the next ones are only counted. */
    static final Duration WINDOW = Duration.ofSeconds(10);

    private final InstantSource clock;
    private final Duration window;
    private final Consumer<String> out;
    /** Per GPU: when its window ends and the XIDs counted in it, by number. */
    private final Map<String, Counted> windows = new LinkedHashMap<>();

    private record Counted(Instant ends, TreeMap<Long, Integer> xids) {
    }

    /** @param out receives each line (the plugin's logger at INFO) */
    XidLog(InstantSource clock, Duration window, Consumer<String> out) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.window = Objects.requireNonNull(window, "window");
        this.out = Objects.requireNonNull(out, "out");
    }

    /** One XID on {@code gpu}; {@code where} adds the MIG instance, or is empty. */
    void xid(String gpu, long xid, String where) {
        String line = null;
        synchronized (this) {
            Instant now = clock.instant();
            Counted counted = windows.get(gpu);
            if (counted != null && now.isBefore(counted.ends())) {
                counted.xids().merge(xid, 1, Integer::sum);
            } else {
                if (counted != null && !counted.xids().isEmpty()) {
                    out.accept(summary(gpu, counted));
                }
                windows.put(gpu, new Counted(now.plus(window), new TreeMap<>()));
                line = "XID " + xid + " on " + gpu + where;
            }
        }
        if (line != null) {
            out.accept(line);
        }
    }

    /** Sums up each GPU whose window has passed; called by every health check. */
    void flush() {
        List<String> lines = new ArrayList<>();
        synchronized (this) {
            Instant now = clock.instant();
            for (Iterator<Map.Entry<String, Counted>> it = windows.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, Counted> entry = it.next();
                if (!now.isBefore(entry.getValue().ends())) {
                    if (!entry.getValue().xids().isEmpty()) {
                        lines.add(summary(entry.getKey(), entry.getValue()));
                    }
                    it.remove();
                }
            }
        }
        lines.forEach(out);
    }

    private String summary(String gpu, Counted counted) {
        int total = counted.xids().values().stream().mapToInt(Integer::intValue).sum();
        return total + " more XID" + (total == 1 ? "" : "s") + " on " + gpu + " within " + window.toSeconds()
                + "s of the one logged (" + counted.xids().entrySet().stream()
                .map(e -> "XID " + e.getKey() + " x" + e.getValue()).collect(Collectors.joining(", ")) + ")";
    }
}
