package dev.kgpu.plugin.dra;

import java.util.Optional;

/**
 * Versions as NVIDIA's driver publishes them in {@code version} attributes: parsed loosely and printed as
 * {@code major.minor.patch} (Masterminds semver's {@code MustParse(...).String()}), so {@code 9.0} becomes
 * {@code 9.0.0} and {@code 535.104.05} becomes {@code 535.104.5}. Not discovery's {@code DriverVersions}
 * (a node's driver and CUDA versions): this is the attribute format alone.
 */
final class VersionAttributes {

    private VersionAttributes() {
    }

    /**
     * {@code text} as a semantic version with three numeric parts; empty when it is not one to three dot-separated
     * numbers (NVIDIA's driver would not start; kgpu leaves the attribute out).
     */
    static Optional<String> semver(String text) {
        String[] parts = text.strip().split("\\.", -1);
        if (parts.length > 3) {
            return Optional.empty();
        }
        long[] numbers = new long[3];
        for (int i = 0; i < parts.length; i++) {
            if (!parts[i].matches("\\d{1,18}")) {
                return Optional.empty();
            }
            numbers[i] = Long.parseLong(parts[i]);
        }
        return Optional.of(numbers[0] + "." + numbers[1] + "." + numbers[2]);
    }
}
