package dev.kgpu.discovery.run;

import dev.kgpu.discovery.labels.Labels;
import dev.kgpu.discovery.publish.LabelSink;

import java.util.Optional;

/** How one labelling pass ended. */
public sealed interface PassResult {

    /**
     * The labels are published (written, or already there).
     *
     * @param nvmlProblem why NVML could not be used, when the labels are the minimal NVML-less ones
     */
    record Published(Labels labels, String sink, LabelSink.Outcome outcome, Optional<String> nvmlProblem) implements PassResult {
    }

    /** Nothing was published; the labels published before stay, and the pass is retried with backoff. */
    record Failed(String reason) implements PassResult {
    }

    /** The agent must stop: NVML is unusable and FAIL_ON_INIT_ERROR is true, or a setting the sink needs is missing. */
    record Fatal(String reason) implements PassResult {
    }
}
