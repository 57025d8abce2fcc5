package dev.kgpu.gpucheck.compare;

/**
 * How one compared value came out: whether kgpu and the reference agree. (Named apart from the validator's
 * {@code Verdict}, which is a component's outcome; the report's column still reads "verdict".)
 */
public enum Agreement {
    /** Equal, or within the field's tolerance. */
    MATCH,
    /** Different: the check fails. */
    MISMATCH,
    /** Nothing to compare with (e.g. nvidia-smi does not report the field); listed, does not fail the check. */
    NOT_COMPARED
}
