package dev.kgpu.sim.dra;

import java.math.BigInteger;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A semantic version (semver 2.0.0) as Kubernetes' CEL library {@code semver} has it: a ResourceSlice's
 * {@code version} attributes ({@code driverVersion}, {@code cudaComputeCapability}) and {@code semver("1.2.3")}.
 * Ordered by semver precedence (build metadata ignored); equal when the precedence is equal and the build is too.
 * Immutable.
 */
public record Semver(long major, long minor, long patch, List<String> preRelease, String build) implements Comparable<Semver> {

    private static final Pattern SEMVER = Pattern.compile(
            "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)"
                    + "(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
                    + "(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$");

    public Semver {
        preRelease = List.copyOf(preRelease);
        Objects.requireNonNull(build, "build");
    }

    /**
     * Parses {@code text} strictly, as Kubernetes' {@code semver()} does (blang/semver {@code Parse}).
     *
     * @throws IllegalArgumentException naming the text when it is not a semantic version
     */
    public static Semver parse(String text) {
        Matcher m = SEMVER.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a semantic version (major.minor.patch)");
        }
        try {
            return new Semver(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                    m.group(4) == null ? List.of() : List.of(m.group(4).split("\\.")), m.group(5) == null ? "" : m.group(5));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' has a version number too large", e);
        }
    }

    /** Whether {@code text} parses. */
    public static boolean isValid(String text) {
        return SEMVER.matcher(text).matches();
    }

    @Override
    public int compareTo(Semver other) {
        int c = Long.compare(major, other.major);
        if (c == 0) {
            c = Long.compare(minor, other.minor);
        }
        if (c == 0) {
            c = Long.compare(patch, other.patch);
        }
        if (c != 0) {
            return c;
        }
        if (preRelease.isEmpty() || other.preRelease.isEmpty()) {
            // a version without pre-release ranks above one with
            return Boolean.compare(preRelease.isEmpty(), other.preRelease.isEmpty());
        }
        for (int i = 0; i < Math.min(preRelease.size(), other.preRelease.size()); i++) {
            c = comparePart(preRelease.get(i), other.preRelease.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(preRelease.size(), other.preRelease.size());
    }

    private static int comparePart(String a, String b) {
        boolean numericA = a.chars().allMatch(Character::isDigit);
        boolean numericB = b.chars().allMatch(Character::isDigit);
        if (numericA && numericB) {
            return new BigInteger(a).compareTo(new BigInteger(b));
        }
        if (numericA != numericB) {
            return numericA ? -1 : 1;
        }
        return a.compareTo(b);
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch + (preRelease.isEmpty() ? "" : "-" + String.join(".", preRelease))
                + (build.isEmpty() ? "" : "+" + build);
    }
}
