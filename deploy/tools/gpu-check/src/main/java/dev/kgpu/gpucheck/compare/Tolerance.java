package dev.kgpu.gpucheck.compare;

import java.util.Locale;

/**
 * How far a value may be from its reference: the larger of an absolute allowance and a fraction of the
 * reference. {@link #moving()} values (temperature, power, clocks, utilisation, memory in use) are compared
 * with the range of the reference's readings taken before and after kgpu's, widened by the allowance.
 */
public record Tolerance(double absolute, double relative, boolean moving) {

    public static final Tolerance EXACT = new Tolerance(0, 0, false);

    public static Tolerance fixed(double absolute) {
        return new Tolerance(absolute, 0, false);
    }

    public static Tolerance moving(double absolute) {
        return new Tolerance(absolute, 0, true);
    }

    public static Tolerance moving(double absolute, double relative) {
        return new Tolerance(absolute, relative, true);
    }

    public double allowance(double reference) {
        return Math.max(absolute, relative * Math.abs(reference));
    }

    /** For the report: {@code exact}, {@code ±1}, {@code ±15 or 10 % within the readings around it}. */
    public String describe() {
        if (absolute == 0 && relative == 0 && !moving) {
            return "exact";
        }
        String amount = "±" + trim(absolute) + (relative > 0 ? " or " + trim(relative * 100) + " %" : "");
        return moving ? amount + " around the readings before and after" : amount;
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
