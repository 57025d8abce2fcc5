package dev.kgpu.validator.core;

/** The device nodes under {@code NVIDIA_DEV_ROOT} as the validator's container sees them. */
public interface DeviceNodes {

    /** What a node is. */
    enum Kind { CHARACTER_DEVICE, REGULAR_FILE, OTHER, MISSING }

    /** The dev root, for messages, e.g. {@code /}. */
    String root();

    /** What {@code relativePath} (e.g. {@code dev/nvidiactl}) is under the dev root. */
    Kind kind(String relativePath);
}
