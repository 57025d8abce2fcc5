package dev.kgpu.gpucheck.node;

import java.util.Locale;

/**
 * One value as a source reported it, normalised so that nvml-ffm's reading and nvidia-smi's can be
 * compared: a number in the unit nvidia-smi prints (MiB, °C, W, MHz, %), a text, "not available" (NVML's
 * NOT_SUPPORTED, nvidia-smi's {@code N/A}), or absent (the source does not report that field at all, e.g.
 * an older nvidia-smi).
 *
 * <p>Thread-safety: immutable.
 */
public sealed interface Val {

    /** For reports: the value as a person reads it. */
    String show();

    record Num(double value) implements Val {
        @Override
        public String show() {
            return value == Math.rint(value) && Math.abs(value) < 1e15
                    ? Long.toString((long) value) : String.format(Locale.ROOT, "%.3f", value);
        }
    }

    record Text(String value) implements Val {
        @Override
        public String show() {
            return value;
        }
    }

    /** The source answered that it has no value (NVML NOT_SUPPORTED, nvidia-smi {@code N/A}). */
    record NotAvailable(String as) implements Val {
        @Override
        public String show() {
            return "N/A (" + as + ")";
        }
    }

    /** The source does not report this field at all. */
    record Absent() implements Val {
        @Override
        public String show() {
            return "(not reported)";
        }
    }

    static Val num(double value) {
        return new Num(value);
    }

    static Val text(String value) {
        return new Text(value);
    }

    static Val notAvailable(String as) {
        return new NotAvailable(as);
    }

    static Val absent() {
        return new Absent();
    }
}
