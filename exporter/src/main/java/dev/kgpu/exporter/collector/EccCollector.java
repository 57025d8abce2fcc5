package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Values;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code DCGM_FI_DEV_ECC_{SBE,DBE}_{VOL,AGG}_TOTAL}: {@code nvmlDeviceGetTotalEccErrors} for corrected
 * (single-bit) and uncorrected (double-bit) errors, volatile and aggregate. No series where ECC is off.
 */
final class EccCollector extends GpuFieldCollector {

    EccCollector(CounterSet counters) {
        super(counters, Set.of(Reading.ECC), List.of(
                field("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", GpuSample.EccTotals::sbeVolatile),
                field("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", GpuSample.EccTotals::dbeVolatile),
                field("DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", GpuSample.EccTotals::sbeAggregate),
                field("DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", GpuSample.EccTotals::dbeAggregate)));
    }

    private static Field field(String name, Function<GpuSample.EccTotals, OptionalLong> pick) {
        return new Field(name, false, gpu -> gpu.ecc().flatMap(ecc -> {
            OptionalLong value = pick.apply(ecc);
            return value.isPresent() ? Optional.of(Values.of(value.getAsLong())) : Optional.empty();
        }));
    }
}
