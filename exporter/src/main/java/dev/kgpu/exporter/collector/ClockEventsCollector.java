package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricsBuilder;
import dev.kgpu.exporter.metrics.Values;
import dev.kgpu.nvml.ClockEventReason;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code DCGM_EXP_CLOCK_EVENTS_COUNT}: per GPU and reason, in how many collections within the window NVML
 * said the clocks were held back for that reason ({@code nvmlDeviceGetCurrentClocksEventReasons}, sampled
 * once per collection as DCGM samples it once per update interval), with labels {@code clock_event} and
 * {@code window_size_in_ms}; one series of value 0 without {@code clock_event} when there was none.
 */
final class ClockEventsCollector implements Collector {

    private record Sample(Instant at, Set<ClockEventReason> reasons) {
    }

    private final Counter counter;
    private final Duration window;
    private final InstantSource clock;
    private final Map<String, Deque<Sample>> samples = new HashMap<>();

    ClockEventsCollector(Counter counter, Duration window, InstantSource clock) {
        this.counter = counter;
        this.window = window;
        this.clock = clock;
    }

    @Override
    public Set<Reading> readings() {
        return Set.of(Reading.TELEMETRY);
    }

    @Override
    public void collect(NodeSample node, MetricsBuilder out) {
        Instant now = clock.instant();
        Instant from = now.minus(window);
        String windowMs = Long.toString(window.toMillis());
        for (GpuSample gpu : node.gpus()) {
            Deque<Sample> history = samples.computeIfAbsent(gpu.gpu().gpuUuid(), k -> new ArrayDeque<>());
            gpu.telemetry().flatMap(t -> t.clockEventReasons())
                    .ifPresent(reasons -> history.addLast(new Sample(now, reasons)));
            while (!history.isEmpty() && !history.peekFirst().at.isAfter(from)) {
                history.removeFirst();
            }
            EnumMap<ClockEventReason, Integer> counts = new EnumMap<>(ClockEventReason.class);
            for (Sample sample : history) {
                for (ClockEventReason reason : sample.reasons) {
                    counts.merge(reason, 1, Integer::sum);
                }
            }
            for (Entity entity : gpu.entities()) {
                if (counts.isEmpty()) {
                    out.add(counter, entity, Map.of("window_size_in_ms", windowMs), Map.of(), "0");
                }
                counts.forEach((reason, count) -> out.add(counter, entity,
                        Map.of("clock_event", reason.label(), "window_size_in_ms", windowMs), Map.of(),
                        Values.of(count)));
            }
        }
    }
}
