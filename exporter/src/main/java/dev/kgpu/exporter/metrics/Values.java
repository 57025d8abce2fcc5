package dev.kgpu.exporter.metrics;

import java.util.Locale;

/** Values formatted as dcgm-exporter formats DCGM's: integers with {@code %d}, doubles with {@code %f}. */
public final class Values {

    private Values() {
    }

    public static String of(long value) {
        return Long.toString(value);
    }

    /** Six decimals, no exponent ({@code 71.234000}); NaN and infinities as Prometheus spells them. */
    public static String of(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        return String.format(Locale.ROOT, "%f", value);
    }
}
