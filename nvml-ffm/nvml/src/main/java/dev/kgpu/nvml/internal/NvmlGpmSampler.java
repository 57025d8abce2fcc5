package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.GpmMetrics;
import dev.kgpu.nvml.GpmSampler;
import dev.kgpu.nvml.internal.bindings.NvmlNative;
import dev.kgpu.nvml.internal.bindings.nvmlGpmMetric_t;
import dev.kgpu.nvml.internal.bindings.nvmlGpmMetricsGet_t;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * GPM sampling for one GPU ({@code nvmlGpmSampleGet}) or one GPU instance of a MIG-enabled GPU
 * ({@code nvmlGpmMigSampleGet}). It owns two NVML sample buffers ({@code nvmlGpmSampleAlloc}) and the
 * {@code nvmlGpmMetricsGet_t} request, allocated once in a shared arena; {@link #sample()} fills the
 * older buffer, asks NVML for the metrics between the two, and swaps them.
 *
 * <p>Thread-safety: meant for one collector thread, but {@link #sample()} and {@link #close()} are
 * synchronised so that the session closing it from another thread never frees a buffer in use.
 */
final class NvmlGpmSampler implements GpmSampler {

    /** The metrics GpmMetrics carries, in its component order after {@code interval}. */
    private static final int[] METRICS = {
            NvmlNative.NVML_GPM_METRIC_GRAPHICS_UTIL(),
            NvmlNative.NVML_GPM_METRIC_SM_UTIL(),
            NvmlNative.NVML_GPM_METRIC_SM_OCCUPANCY(),
            NvmlNative.NVML_GPM_METRIC_ANY_TENSOR_UTIL(),
            NvmlNative.NVML_GPM_METRIC_DRAM_BW_UTIL(),
            NvmlNative.NVML_GPM_METRIC_FP64_UTIL(),
            NvmlNative.NVML_GPM_METRIC_FP32_UTIL(),
            NvmlNative.NVML_GPM_METRIC_FP16_UTIL(),
            NvmlNative.NVML_GPM_METRIC_PCIE_TX_PER_SEC(),
            NvmlNative.NVML_GPM_METRIC_PCIE_RX_PER_SEC(),
    };
    private static final double MIB = 1024.0 * 1024.0;

    private final NvmlSession session;
    private final NvmlGpu gpu;
    private final OptionalInt gpuInstanceId;
    /**
     * The request and the pointer NVML writes the samples' addresses into; freed by the GC once the sampler is
     * gone. Not a shared arena closed in {@link #close}: native images support closing one only with
     * -H:+SharedArenaSupport, which instruments every memory access of the image.
     */
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment request;
    private MemorySegment older;
    private MemorySegment newer;
    private long olderNanos;
    private boolean primed;
    private boolean closed;

    NvmlGpmSampler(NvmlGpu gpu, OptionalInt gpuInstanceId) {
        this.session = gpu.session();
        this.gpu = gpu;
        this.gpuInstanceId = gpuInstanceId;
        session.ensureOpen("nvmlGpmSampleAlloc");
        this.request = arena.allocate(nvmlGpmMetricsGet_t.layout());
        MemorySegment pointer = arena.allocate(ValueLayout.ADDRESS);
        try {
            NvmlReturns.check(NvmlNative.nvmlGpmSampleAlloc(pointer), "nvmlGpmSampleAlloc");
            this.older = pointer.get(ValueLayout.ADDRESS, 0);
            NvmlReturns.check(NvmlNative.nvmlGpmSampleAlloc(pointer), "nvmlGpmSampleAlloc");
            this.newer = pointer.get(ValueLayout.ADDRESS, 0);
            session.opened(this);
        } catch (RuntimeException e) {
            if (older != null) {
                NvmlNative.nvmlGpmSampleFree(older);
            }
            if (newer != null) {
                NvmlNative.nvmlGpmSampleFree(newer);
            }
            throw e;
        }
    }

    @Override
    public synchronized Optional<GpmMetrics> sample() {
        if (closed) {
            throw new IllegalStateException("GPM sampler of " + gpu + " was closed");
        }
        String function = gpuInstanceId.isPresent() ? "nvmlGpmMigSampleGet" : "nvmlGpmSampleGet";
        session.ensureOpen(function);
        MemorySegment target = older; // the older buffer becomes the newest sample
        int rc = gpuInstanceId.isPresent()
                ? NvmlNative.nvmlGpmMigSampleGet(gpu.handle(), gpuInstanceId.getAsInt(), target)
                : NvmlNative.nvmlGpmSampleGet(gpu.handle(), target);
        NvmlReturns.check(rc, function);
        long now = System.nanoTime();
        older = newer;
        newer = target;
        if (!primed) {
            primed = true;
            olderNanos = now;
            return Optional.empty();
        }
        nvmlGpmMetricsGet_t.version(request, NvmlNative.NVML_GPM_METRICS_GET_VERSION());
        nvmlGpmMetricsGet_t.numMetrics(request, METRICS.length);
        nvmlGpmMetricsGet_t.sample1(request, older);
        nvmlGpmMetricsGet_t.sample2(request, newer);
        for (int i = 0; i < METRICS.length; i++) {
            MemorySegment metric = nvmlGpmMetricsGet_t.metrics(request, i);
            metric.fill((byte) 0);
            nvmlGpmMetric_t.metricId(metric, METRICS[i]);
        }
        NvmlReturns.check(NvmlNative.nvmlGpmMetricsGet(request), "nvmlGpmMetricsGet");
        Duration interval = Duration.ofNanos(now - olderNanos);
        olderNanos = now;
        return Optional.of(new GpmMetrics(interval,
                value(0) / 100, value(1) / 100, value(2) / 100, value(3) / 100, value(4) / 100,
                value(5) / 100, value(6) / 100, value(7) / 100, value(8) * MIB, value(9) * MIB));
    }

    /** Metric {@code i}'s value, or NaN when NVML could not compute that one metric. */
    private double value(int i) {
        MemorySegment metric = nvmlGpmMetricsGet_t.metrics(request, i);
        return nvmlGpmMetric_t.nvmlReturn(metric) == NvmlReturns.SUCCESS ? nvmlGpmMetric_t.value(metric) : Double.NaN;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        NvmlNative.nvmlGpmSampleFree(older);
        NvmlNative.nvmlGpmSampleFree(newer);
        session.closedResource(this); // last: it may shut NVML down
    }

    @Override
    public String toString() {
        return "GPM sampler of " + gpu + gpuInstanceId.stream().mapToObj(id -> " GI " + id).findFirst().orElse("");
    }
}
