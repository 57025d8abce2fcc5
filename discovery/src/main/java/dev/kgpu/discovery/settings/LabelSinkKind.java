package dev.kgpu.discovery.settings;

import dev.kgpu.config.v1.WireValue;

/**
 * Which kind of sink feature discovery publishes labels to ({@code KGPU_LABEL_SINK}, {@code --label-sink}).
 * {@code GFD_USE_NODE_FEATURE_API=false} (or {@code flags.useNodeFeatureAPI: false}) selects {@link #FILE}
 * when no sink is named, for compatibility with NVIDIA's GFD.
 */
public enum LabelSinkKind implements WireValue {
    /** {@link #NODE_FEATURE} when the NodeFeature CRD is served, else {@link #NODE}: decided at run time. */
    AUTO("auto"),
    /** Patch the Node's {@code nvidia.com/} labels directly. */
    NODE("node"),
    /** NFD's {@code NodeFeature} object {@code nvidia-features-for-<node>}, as NVIDIA's GFD does by default. */
    NODE_FEATURE("nodefeature"),
    /** NFD's feature file at {@code flags.gfd.outputFile}. */
    FILE("file");

    private final String wireName;

    LabelSinkKind(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }

    /**
     * The kind to use: this one, unless it is {@link #AUTO}, which becomes {@link #NODE_FEATURE} when NFD's
     * NodeFeature CRD is served and {@link #NODE} otherwise.
     */
    public LabelSinkKind settled(boolean nodeFeatureCrdServed) {
        if (this != AUTO) {
            return this;
        }
        return nodeFeatureCrdServed ? NODE_FEATURE : NODE;
    }

    @Override
    public String toString() {
        return wireName;
    }
}
