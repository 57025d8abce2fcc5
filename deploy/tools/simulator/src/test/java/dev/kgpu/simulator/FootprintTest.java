package dev.kgpu.simulator;

import dev.kgpu.simulator.agents.Agent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class FootprintTest {

    @Test
    void mediansOfOddAndEvenRuns() {
        assertThat(Footprint.median(List.of(1L, 5L, 9L))).isEqualTo(5);
        assertThat(Footprint.median(List.of(1L, 5L, 7L, 9L))).isEqualTo(6);
        assertThat(Footprint.median(List.of())).isZero();
    }

    @Test
    void theTableHasOneRowPerAgentWithMediansAndTheAotCache() {
        Map<Agent, List<Footprint.Sample>> samples = new EnumMap<>(Agent.class);
        samples.put(Agent.PLUGIN, List.of(sample(900, 60), sample(700, 62), sample(800, 61)));
        samples.put(Agent.EXPORTER, List.of(sample(1200, 70, false), sample(1100, 71, true), sample(1000, 72, false)));

        String table = Footprint.table(samples, 3, "@deploy/release/images/jvm.options");

        assertThat(table.lines().toList()).startsWith(
                "| agent | start-to-ready (median of 3) | RSS at ready (median) | AOT cache used |",
                "|---|---|---|---|",
                "| plugin | 0.80 s | 61 MiB | yes |",
                "| exporter | 1.10 s | 71 MiB | 1 of 3 runs |");
        assertThat(table).contains("JVM options: @deploy/release/images/jvm.options.");
    }

    private static Footprint.Sample sample(long millis, long mib) {
        return sample(millis, mib, true);
    }

    private static Footprint.Sample sample(long millis, long mib, boolean aot) {
        return new Footprint.Sample(Duration.ofMillis(millis), mib * 1024, aot);
    }
}
