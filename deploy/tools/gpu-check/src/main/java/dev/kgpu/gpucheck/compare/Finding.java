package dev.kgpu.gpucheck.compare;

/**
 * One compared value.
 *
 * @param step      the part of the check, e.g. {@code nvml}, {@code exporter}
 * @param subject   what the value belongs to, e.g. {@code node}, {@code GPU 0 GPU-7c1d...}
 * @param field     its name where the reference reports it, e.g. {@code fb_memory_usage.total},
 *                  {@code nvidia.com/gpu.memory}, {@code DCGM_FI_DEV_GPU_TEMP}
 * @param kgpu      what kgpu reported (nvml-ffm, or the agent)
 * @param reference what it was compared with
 * @param source    where the reference comes from, e.g. {@code nvidia-smi}, {@code nvml-ffm}
 * @param rule      how it was compared, e.g. {@code exact}, {@code ±3 within the readings before and after}
 * @param agreement whether kgpu and the reference agree
 * @param note      why, in a few words, when the agreement needs one (empty otherwise)
 */
public record Finding(String step, String subject, String field, String kgpu, String reference, String source,
                      String rule, Agreement agreement, String note) {

    /** {@code exporter GPU 0 GPU-...: DCGM_FI_DEV_GPU_TEMP was '45' but nvidia-smi says '31' (±3 ...)}. */
    public String line() {
        return step + " " + subject + ": " + field + " was '" + kgpu + "' but " + source + " says '" + reference + "'"
                + (rule.isEmpty() ? "" : " (" + rule + ")") + (note.isEmpty() ? "" : "; " + note);
    }
}
