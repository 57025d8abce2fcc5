package dev.kgpu.validator.core;

import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * gpu-operator's {@code cc-manager} component: on a node labelled {@value #CC_CAPABLE}{@code =true}, its
 * confidential-computing manager must have applied the CC mode and said so with
 * {@code OUTPUT_DIR/.cc-manager-ctr-ready}; on any other node there is nothing to wait for, and it passes and writes
 * {@code cc-manager-ready}, as NVIDIA's does.
 */
public final class CcManagerValidator implements ComponentValidator {

    /** The node label NFD's GPU rules (or the user) set on a confidential-computing capable node. */
    public static final String CC_CAPABLE = "nvidia.com/cc.capable";
    /** The file the CC manager writes when its container is ready. */
    public static final String READY_FILE = ".cc-manager-ctr-ready";

    private final NodeLabels labels;
    private final BooleanSupplier managerReady;

    /**
     * @param managerReady whether {@value #READY_FILE} exists in {@code OUTPUT_DIR}
     */
    public CcManagerValidator(NodeLabels labels, BooleanSupplier managerReady) {
        this.labels = Objects.requireNonNull(labels, "labels");
        this.managerReady = Objects.requireNonNull(managerReady, "managerReady");
    }

    @Override
    public Component component() {
        return Component.CC_MANAGER;
    }

    @Override
    public Evidence validate() {
        if (!"true".equals(labels.read().get(CC_CAPABLE))) {
            return Evidence.of("not a confidential-computing node (label " + CC_CAPABLE + " is not true): nothing to"
                    + " wait for");
        }
        if (!managerReady.getAsBoolean()) {
            throw new ComponentFailure(Layer.DRIVER, "the CC manager is not ready: OUTPUT_DIR/" + READY_FILE
                    + " does not exist (gpu-operator's k8s-cc-manager writes it once the CC mode is applied)");
        }
        return Evidence.of("the CC manager is ready (" + READY_FILE + ")");
    }
}
