package dev.kgpu.exporter.collector;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The XID errors NVML reported, per GPU: the last one ({@code DCGM_FI_DEV_XID_ERRORS}) and those within a
 * window ({@code DCGM_EXP_XID_ERRORS_COUNT}). Events older than {@code keep} are forgotten.
 *
 * <p>Thread-safety: {@link #record} is called from NVML's event thread, the reads from the collection
 * thread; every method synchronises on this object.
 */
public final class XidHistory {

    private record Event(long xid, Instant at) {
    }

    private final Duration keep;
    private final Map<String, Deque<Event>> events = new HashMap<>();
    private final Map<String, Long> last = new HashMap<>();

    public XidHistory(Duration keep) {
        this.keep = keep;
    }

    public synchronized void record(String gpuUuid, long xid, Instant at) {
        last.put(gpuUuid, xid);
        Deque<Event> list = events.computeIfAbsent(gpuUuid, k -> new ArrayDeque<>());
        list.addLast(new Event(xid, at));
        prune(list, at);
    }

    /** The last XID of this GPU, or empty when there was none since the exporter started. */
    public synchronized OptionalLong last(String gpuUuid) {
        Long xid = last.get(gpuUuid);
        return xid == null ? OptionalLong.empty() : OptionalLong.of(xid);
    }

    /** How often each XID code happened on this GPU in {@code (now - window, now]}, by code. */
    public synchronized TreeMap<Long, Integer> countsWithin(String gpuUuid, Instant now, Duration window) {
        TreeMap<Long, Integer> counts = new TreeMap<>();
        Deque<Event> list = events.get(gpuUuid);
        if (list == null) {
            return counts;
        }
        prune(list, now);
        Instant from = now.minus(window);
        for (Event event : list) {
            if (event.at.isAfter(from) && !event.at.isAfter(now)) {
                counts.merge(event.xid, 1, Integer::sum);
            }
        }
        return counts;
    }

    private void prune(Deque<Event> list, Instant now) {
        Instant oldest = now.minus(keep);
        while (!list.isEmpty() && list.peekFirst().at.isBefore(oldest)) {
            list.removeFirst();
        }
    }
}
