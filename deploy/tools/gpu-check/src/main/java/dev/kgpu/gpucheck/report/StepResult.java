package dev.kgpu.gpucheck.report;

/**
 * One part of the check and how it ended.
 *
 * @param step   {@code nvml}, {@code plugin}, {@code discovery}, {@code exporter}, {@code validator}, {@code cost}
 * @param status how it ended
 * @param detail one line: what it did, or why it failed or was skipped
 * @param millis how long it took
 */
public record StepResult(String step, Status status, String detail, long millis) {

    public enum Status {
        /** It ran to the end (its findings say whether the values matched). */
        RAN,
        /** It could not run to the end: the check fails. */
        FAILED,
        /** Not asked for, or nothing to run it against (e.g. no nvidia-smi); does not fail the check. */
        SKIPPED
    }
}
