package dev.kgpu.plugin.dra.kubernetes;

/**
 * Integer amounts as the API server writes a {@code BinarySI} quantity in canonical form (apimachinery's
 * {@code CanonicalizeBytes}): below 1024 a plain number, otherwise the largest power of 1024 that divides it as suffix
 * ({@code 85899345920} → {@code 80Gi}, {@code 85520809984} → {@code 81559Mi}). Publishing the canonical form keeps a
 * slice read back from the API server equal to the one kgpu would write, so an unchanged pool writes nothing.
 */
final class Quantities {

    private static final String[] SUFFIXES = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

    private Quantities() {
    }

    static String binarySi(long amount) {
        if (amount > -1024 && amount < 1024) {
            return Long.toString(amount);
        }
        long value = amount;
        int exponent = 0;
        while (exponent < SUFFIXES.length - 1 && value % 1024 == 0) {
            value /= 1024;
            exponent++;
        }
        return value + SUFFIXES[exponent];
    }
}
