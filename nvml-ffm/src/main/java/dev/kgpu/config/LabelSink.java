package dev.kgpu.config;

import dev.kgpu.config.v1.WireValue;

/**
 * Where feature discovery publishes labels ({@code KGPU_LABEL_SINK}, {@code --label-sink}).
 * {@code GFD_USE_NODE_FEATURE_API=false} (or {@code flags.useNodeFeatureAPI: false}) selects {@link #FILE}
 * when no sink is named, for compatibility with NVIDIA's GFD.
 */
public enum LabelSink implements WireValue {
    /** {@link #NODE_FEATURE} when the NodeFeature CRD is served, else {@link #NODE}: decided at run time. */
    AUTO("auto"),
    /** Patch the Node's {@code nvidia.com/} labels directly. */
    NODE("node"),
    /** NFD's {@code NodeFeature} object {@code nvidia-features-for-<node>}, as NVIDIA's GFD does by default. */
    NODE_FEATURE("nodefeature"),
    /** NFD's feature file at {@code flags.gfd.outputFile}. */
    FILE("file");

    private final String wireName;

    LabelSink(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }

    @Override
    public String toString() {
        return wireName;
    }
}
