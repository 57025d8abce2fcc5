package dev.kgpu.gpucheck.compare;

/** How one compared value came out. */
public enum Verdict {
    /** Equal, or within the field's tolerance. */
    MATCH,
    /** Different: the check fails. */
    MISMATCH,
    /** Nothing to compare with (e.g. nvidia-smi does not report the field); listed, does not fail the check. */
    NOT_COMPARED
}
