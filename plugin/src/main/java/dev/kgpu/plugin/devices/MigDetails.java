package dev.kgpu.plugin.devices;

/**
 * Where a MIG device sits on its GPU and what it is made of, as NVIDIA's DRA driver names and publishes it.
 * Immutable.
 *
 * @param profileId       the GPU instance's profile id as {@code nvidia-smi mig -lgip} lists it (19 for {@code 1g.10gb}
 *                        on an A100)
 * @param placementStart  the first memory slice of its GPU instance
 * @param placementSize   the number of memory slices
 * @param memoryBytes     its memory ({@code memorySizeMB} × 2<sup>20</sup>)
 * @param multiprocessors streaming multiprocessors
 * @param copyEngines     copy engines
 * @param decoders        video decoders
 * @param encoders        video encoders
 * @param jpegEngines     JPEG engines
 * @param ofaEngines      optical-flow accelerators
 */
public record MigDetails(int profileId, int placementStart, int placementSize, long memoryBytes, int multiprocessors,
                         int copyEngines, int decoders, int encoders, int jpegEngines, int ofaEngines) {

    /** Nothing known (tests and callers that only serve the device-plugin API). */
    public static final MigDetails UNKNOWN = new MigDetails(0, 0, 1, 0, 0, 0, 0, 0, 0, 0);

    public MigDetails {
        if (placementStart < 0 || placementSize <= 0) {
            throw new IllegalArgumentException("MIG placement was '%d+%d' but it must start at 0 or later and span a slice"
                    .formatted(placementStart, placementSize));
        }
    }
}
