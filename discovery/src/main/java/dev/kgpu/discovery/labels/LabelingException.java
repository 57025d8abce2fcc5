package dev.kgpu.discovery.labels;

/**
 * The node's state cannot be labelled the way GFD labels it. A pass that throws publishes nothing and
 * keeps the labels published before.
 */
public abstract sealed class LabelingException extends RuntimeException {

    LabelingException(String message) {
        super(message);
    }

    /** NVML's driver version is not {@code X.Y[.Z]}. */
    public static final class InvalidDriverVersion extends LabelingException {
        InvalidDriverVersion(String version) {
            super("driver version was '" + version + "' but it must have the form X.Y[.Z]");
        }
    }

    /** The sharing strategy is MPS but a GPU has MIG enabled; MPS cannot share MIG devices. */
    public static final class MpsWithMig extends LabelingException {
        MpsWithMig(int gpuIndex) {
            super("sharing.mps was 'replicated' but it is not supported for MIG devices (GPU " + gpuIndex + " has MIG enabled)");
        }
    }
}
