package dev.kgpu.validator.core;

import java.util.Objects;

/** The outcome of validating one {@link Component}. */
public sealed interface Verdict permits Verdict.Passed, Verdict.Failed, Verdict.Skipped {

    Component component();

    boolean passed();

    /**
     * One line a user can act on, e.g. {@code cuda FAILED scheduling: pod nvidia-cuda-validator-x stayed
     * Pending: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu.}
     */
    String line();

    static Passed passed(Component component, String summary) {
        return new Passed(component, summary);
    }

    static Failed failed(Component component, Layer layer, String reason) {
        return new Failed(component, layer, reason);
    }

    /** The component works; {@code summary} says what was seen. */
    record Passed(Component component, String summary) implements Verdict {
        public Passed {
            Objects.requireNonNull(component, "component");
            Objects.requireNonNull(summary, "summary");
        }

        @Override
        public boolean passed() {
            return true;
        }

        @Override
        public String line() {
            return component.id() + " PASSED " + summary;
        }
    }

    /** The component does not work; {@code layer} says where, {@code reason} what to look at. */
    record Failed(Component component, Layer layer, String reason) implements Verdict {
        public Failed {
            Objects.requireNonNull(component, "component");
            Objects.requireNonNull(layer, "layer");
            Objects.requireNonNull(reason, "reason");
            reason = oneLine(reason);
        }

        @Override
        public boolean passed() {
            return false;
        }

        /** {@code <layer>: <reason>}, e.g. {@code runtime: pod x failed: ...}. */
        public String explanation() {
            return layer.label() + ": " + reason;
        }

        @Override
        public String line() {
            return component.id() + " FAILED " + explanation();
        }
    }

    /** Not checked because an earlier component it depends on failed. */
    record Skipped(Component component, Component failedEarlier) implements Verdict {
        public Skipped {
            Objects.requireNonNull(component, "component");
            Objects.requireNonNull(failedEarlier, "failedEarlier");
        }

        @Override
        public boolean passed() {
            return false;
        }

        @Override
        public String line() {
            return component.id() + " SKIPPED " + failedEarlier.id() + " failed first";
        }
    }

    /** Folds whitespace runs (newlines included) into single spaces so a reason stays on one line. */
    static String oneLine(String text) {
        return text.strip().replaceAll("\\s+", " ");
    }
}
