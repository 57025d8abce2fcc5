package dev.kgpu.nvml;

import java.util.Optional;

/**
 * Samples NVML's GPU performance metrics (GPM) for one GPU or one MIG GPU instance. It holds two native
 * sample buffers; each {@link #sample()} takes a new sample and returns the metrics over the time since
 * the previous one (empty on the first call, which only primes the buffers).
 *
 * <p>Thread-safety: not thread-safe; one collector thread owns a sampler. Closing frees the buffers.
 */
public interface GpmSampler extends AutoCloseable {

    Optional<GpmMetrics> sample();

    @Override
    void close();
}
