package dev.kgpu.validator.core;

/**
 * Where in the stack a validation failed, so a user knows whom to look at. Users tell these apart the same
 * way on NVIDIA's stack: a pod Pending with {@code Insufficient nvidia.com/gpu} is a scheduling problem, a
 * pod that ran and failed is a runtime problem.
 */
public enum Layer {
    /** The NVIDIA driver or NVML: library missing, driver not loaded, a GPU that does not answer. */
    DRIVER("driver"),
    /** The container runtime / toolkit: device nodes or CDI specs missing, or the CUDA sample failed in its container. */
    RUNTIME("runtime"),
    /** The device plugin: the node does not advertise GPUs, or the kubelet refused the pod for lack of them. */
    DEVICE_PLUGIN("device-plugin"),
    /** The scheduler could not place the sample pod on the node. */
    SCHEDULING("scheduling"),
    /** The Kubernetes API server refused or failed a request. */
    API("api");

    private final String label;

    Layer(String label) {
        this.label = label;
    }

    /** Lower-case name used at the start of failure reasons, e.g. {@code scheduling}. */
    public String label() {
        return label;
    }

    @Override
    public String toString() {
        return label;
    }
}
