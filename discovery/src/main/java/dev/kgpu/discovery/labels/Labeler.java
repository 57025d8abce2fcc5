package dev.kgpu.discovery.labels;

import java.util.List;

/**
 * Computes one family of labels from a node snapshot. Labelers are pure: the same input always gives the
 * same labels, and they read nothing but their input (no NVML, no files, no clock).
 */
@FunctionalInterface
public interface Labeler {

    Labels labels(LabelInput input);

    /** One labeler that merges the labels of {@code labelers} in order; a later labeler wins on a shared key. */
    static Labeler merge(Labeler... labelers) {
        List<Labeler> all = List.of(labelers);
        return input -> {
            Labels merged = Labels.empty();
            for (Labeler labeler : all) {
                merged = merged.mergedWith(labeler.labels(input));
            }
            return merged;
        };
    }
}
