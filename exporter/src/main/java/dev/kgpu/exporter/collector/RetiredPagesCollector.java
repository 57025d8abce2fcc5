package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Values;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code DCGM_FI_DEV_RETIRED_SBE}, {@code DCGM_FI_DEV_RETIRED_DBE} ({@code nvmlDeviceGetRetiredPages} per
 * cause) and {@code DCGM_FI_DEV_RETIRED_PENDING} (1 when {@code nvmlDeviceGetRetiredPagesPendingStatus}
 * says pages wait for a reboot). Pre-Ampere page retirement; no series where unsupported.
 */
final class RetiredPagesCollector extends GpuFieldCollector {

    RetiredPagesCollector(CounterSet counters) {
        super(counters, Set.of(Reading.RETIRED_PAGES), List.of(
                new Field("DCGM_FI_DEV_RETIRED_SBE", false, gpu -> gpu.retiredSbe().isPresent()
                        ? Optional.of(Values.of(gpu.retiredSbe().getAsLong())) : Optional.empty()),
                new Field("DCGM_FI_DEV_RETIRED_DBE", false, gpu -> gpu.retiredDbe().isPresent()
                        ? Optional.of(Values.of(gpu.retiredDbe().getAsLong())) : Optional.empty()),
                new Field("DCGM_FI_DEV_RETIRED_PENDING", false,
                        gpu -> gpu.retiredPending().map(p -> Values.of(p ? 1 : 0)))));
    }
}
