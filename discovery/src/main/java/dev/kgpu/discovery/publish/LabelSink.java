package dev.kgpu.discovery.publish;

import dev.kgpu.discovery.labels.Labels;

/**
 * Where a labelling pass publishes its labels: the Node object, an NFD NodeFeature object, or NFD's
 * feature file.
 *
 * <p>Every sink compares what it would publish with what is published now and writes only when they
 * differ in more than the value of {@code gfd.timestamp} ({@link Labels#TIMESTAMP}); so a steady node
 * costs one read and no write per pass, and a restart of the agent writes nothing either.
 *
 * <p>Thread-safety: called from the supervisor thread only.
 */
public interface LabelSink {

    /** The sink's name as {@code KGPU_LABEL_SINK} spells it ({@link dev.kgpu.discovery.settings.LabelSinkKind#wireName()}). */
    String name();

    /** Makes the published labels equal {@code labels} (see the class comment for when that writes). */
    Outcome publish(Labels labels) throws PublishException;

    /** Called once when the agent exits; the file sink removes its file there when GFD would. */
    default void close() {
    }

    /** What a publish did. */
    enum Outcome {
        /** The labels were written. */
        WROTE,
        /** The published labels already matched; nothing was written. */
        UNCHANGED
    }
}
