package dev.kgpu.config.v1;

import java.math.BigInteger;
import java.time.Duration;
import java.util.Map;

/**
 * Go's {@code time.ParseDuration} and {@code time.Duration.String()}, so durations in kgpu's flags,
 * environment and config file read and print exactly as they do in NVIDIA's agents: {@code 60s},
 * {@code 1m30s}, {@code 1.5h}, {@code 500ms}, {@code 2h45m}; printed back as {@code 1m0s}, {@code 1m30s}.
 *
 * <p>A duration is a sequence of decimal numbers, each with an optional fraction and a unit
 * ({@code ns}, {@code us}/{@code µs}, {@code ms}, {@code s}, {@code m}, {@code h}), optionally signed;
 * {@code 0} alone needs no unit. Like Go, the value must fit in a signed 64-bit count of nanoseconds.
 *
 * <p>Stateless and thread-safe.
 */
public final class GoDuration {

    private static final BigInteger MAX_MAGNITUDE = BigInteger.ONE.shiftLeft(63); // Go allows -1<<63 only
    private static final BigInteger MAX_POSITIVE = MAX_MAGNITUDE.subtract(BigInteger.ONE);
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private static final Map<String, Long> UNITS = Map.of(
            "ns", 1L,
            "us", 1_000L,
            "\u00b5s", 1_000L, // U+00B5 micro sign
            "\u03bcs", 1_000L, // U+03BC Greek small letter mu
            "ms", 1_000_000L,
            "s", NANOS_PER_SECOND,
            "m", 60 * NANOS_PER_SECOND,
            "h", 3600 * NANOS_PER_SECOND);

    private GoDuration() {
    }

    /**
     * Parses {@code text} as Go's {@code time.ParseDuration} does.
     *
     * @throws IllegalArgumentException with Go's own wording ({@code time: missing unit in duration "60"})
     */
    public static Duration parse(String text) {
        String s = text;
        boolean negative = false;
        if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
            negative = s.charAt(0) == '-';
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        if (s.isEmpty()) {
            throw invalid(text);
        }
        BigInteger total = BigInteger.ZERO;
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (!(c == '.' || isDigit(c))) {
                throw invalid(text);
            }
            int start = i;
            while (i < s.length() && isDigit(s.charAt(i))) {
                i++;
            }
            boolean hasInteger = i > start;
            String digits = s.substring(start, i).replaceFirst("^0+(?=.)", "");
            if (digits.length() > 19) {
                throw invalid(text); // more than 2^63 nanoseconds of any unit, as Go's overflow check finds
            }
            BigInteger whole = hasInteger ? new BigInteger(digits) : BigInteger.ZERO;
            BigInteger fraction = BigInteger.ZERO;
            BigInteger scale = BigInteger.ONE;
            boolean hasFraction = false;
            if (i < s.length() && s.charAt(i) == '.') {
                i++;
                int fractionStart = i;
                while (i < s.length() && isDigit(s.charAt(i))) {
                    i++;
                }
                hasFraction = i > fractionStart;
                if (hasFraction) {
                    // as Go, which stops taking fraction digits once they would overflow: at most 19 count
                    int end = Math.min(i, fractionStart + 19);
                    fraction = new BigInteger(s.substring(fractionStart, end));
                    scale = BigInteger.TEN.pow(end - fractionStart);
                }
            }
            if (!hasInteger && !hasFraction) {
                throw invalid(text);
            }
            int unitStart = i;
            while (i < s.length() && s.charAt(i) != '.' && !isDigit(s.charAt(i))) {
                i++;
            }
            if (i == unitStart) {
                throw new IllegalArgumentException("time: missing unit in duration " + quote(text));
            }
            String unitText = s.substring(unitStart, i);
            Long unit = UNITS.get(unitText);
            if (unit == null) {
                throw new IllegalArgumentException(
                        "time: unknown unit " + quote(unitText) + " in duration " + quote(text));
            }
            BigInteger unitNanos = BigInteger.valueOf(unit);
            // Go truncates the fractional part towards zero, in nanoseconds.
            total = total.add(whole.multiply(unitNanos)).add(fraction.multiply(unitNanos).divide(scale));
            if (total.compareTo(MAX_MAGNITUDE) > 0) {
                throw invalid(text);
            }
        }
        if (!negative && total.compareTo(MAX_POSITIVE) > 0) {
            throw invalid(text);
        }
        long nanos = negative ? total.negate().longValue() : total.longValue();
        return Duration.ofNanos(nanos);
    }

    /**
     * Formats {@code duration} as Go's {@code time.Duration.String()}: {@code 0s}, {@code 500ms},
     * {@code 1.5µs}, {@code 1m0s}, {@code 1h2m3.5s}.
     *
     * @throws IllegalArgumentException when the duration does not fit in 64 bits of nanoseconds
     */
    public static String format(Duration duration) {
        long nanos;
        try {
            nanos = duration.toNanos();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("duration was '" + duration + "' but it must fit in 64 bits of nanoseconds", e);
        }
        if (nanos == 0) {
            return "0s";
        }
        boolean negative = nanos < 0;
        // Work on the magnitude as an unsigned value so that Long.MIN_VALUE formats correctly.
        long u = negative ? -nanos : nanos;
        StringBuilder out = new StringBuilder();
        if (Long.compareUnsigned(u, NANOS_PER_SECOND) < 0) {
            String unit;
            int precision;
            if (u < 1_000L) {
                unit = "ns";
                precision = 0;
            } else if (u < 1_000_000L) {
                unit = "\u00b5s";
                precision = 3;
            } else {
                unit = "ms";
                precision = 6;
            }
            out.append(Long.toUnsignedString(u / pow10(precision)))
                    .append(fraction(u % pow10(precision), precision))
                    .append(unit);
        } else {
            long seconds = Long.divideUnsigned(u, NANOS_PER_SECOND);
            long subSecond = Long.remainderUnsigned(u, NANOS_PER_SECOND);
            long hours = seconds / 3600;
            long minutes = (seconds / 60) % 60;
            long secs = seconds % 60;
            if (hours > 0) {
                out.append(hours).append('h');
            }
            if (hours > 0 || minutes > 0) {
                out.append(minutes).append('m');
            }
            out.append(secs).append(fraction(subSecond, 9)).append('s');
        }
        return negative ? "-" + out : out.toString();
    }

    private static String fraction(long value, int precision) {
        if (value == 0 || precision == 0) {
            return "";
        }
        String digits = String.format("%0" + precision + "d", value);
        int end = digits.length();
        while (end > 0 && digits.charAt(end - 1) == '0') {
            end--;
        }
        return "." + digits.substring(0, end);
    }

    private static long pow10(int exponent) {
        long result = 1;
        for (int i = 0; i < exponent; i++) {
            result *= 10;
        }
        return result;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("time: invalid duration " + quote(text));
    }

    private static String quote(String text) {
        return "\"" + text + "\"";
    }
}
