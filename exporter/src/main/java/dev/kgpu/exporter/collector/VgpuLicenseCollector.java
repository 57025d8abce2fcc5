package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.CounterSet;
import dev.kgpu.exporter.metrics.Values;

import java.util.List;
import java.util.Set;

/**
 * {@code DCGM_FI_DEV_VGPU_LICENSE_STATUS}: 1 when the vGPU guest holds its licence, else 0
 * ({@code nvmlDeviceGetGridLicensableFeatures}); no series on GPUs that are no vGPU guests.
 */
final class VgpuLicenseCollector extends GpuFieldCollector {

    VgpuLicenseCollector(CounterSet counters) {
        super(counters, Set.of(Reading.VGPU_LICENSE), List.of(
                new Field("DCGM_FI_DEV_VGPU_LICENSE_STATUS", false,
                        gpu -> gpu.vgpuLicense().map(l -> Values.of(l.licensed() ? 1 : 0)))));
    }
}
