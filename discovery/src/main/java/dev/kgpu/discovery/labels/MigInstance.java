package dev.kgpu.discovery.labels;

import java.util.Objects;

/**
 * One MIG device, described by its profile and the attributes GFD labels
 * ({@code nvmlDeviceGetAttributes} of the MIG device).
 *
 * @param profile NVIDIA's canonical profile name, e.g. {@code 1g.10gb}, {@code 1c.2g.20gb} or {@code 1g.10gb+me}
 */
public record MigInstance(
        String profile,
        long memoryMiB,
        int multiprocessors,
        int gpuInstanceSlices,
        int computeInstanceSlices,
        int copyEngines,
        int decoders,
        int encoders,
        int jpegEngines,
        int ofaEngines) {

    public MigInstance {
        Objects.requireNonNull(profile, "profile");
        if (profile.isBlank()) {
            throw new IllegalArgumentException("MIG profile was '" + profile + "' but it must not be blank");
        }
    }

    /**
     * The profile as it appears in resource and label names: {@code +} becomes {@code .}
     * ({@code 1g.10gb+me} becomes {@code 1g.10gb.me}), as NVIDIA's device plugin and GFD name it.
     */
    public String resourceProfile() {
        return profile.replace('+', '.');
    }
}
