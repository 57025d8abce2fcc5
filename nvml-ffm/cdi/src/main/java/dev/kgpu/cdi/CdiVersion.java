package dev.kgpu.cdi;

import java.util.List;

/**
 * CDI spec versions and the least one a spec's content needs (the CDI project's {@code specs-go/version.go}):
 * writers such as NVIDIA's declare that minimum rather than the newest version.
 *
 * <p>Stateless and thread-safe.
 */
public final class CdiVersion {

    /** Every version the CDI library accepts, oldest first. */
    public static final List<String> KNOWN = List.of("0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0",
            "0.8.0", "1.0.0", "1.1.0");
    /** The newest version. */
    public static final String CURRENT = "1.1.0";

    private CdiVersion() {
    }

    /** The least version {@code spec} needs: 0.3.0, raised by each feature it uses. */
    public static String minimumFor(CdiSpec spec) {
        String minimum = "0.3.0";
        if (spec.deviceClass().contains(".") || !spec.annotations().isEmpty()
                || spec.devices().stream().anyMatch(d -> !d.annotations().isEmpty())) {
            minimum = max(minimum, "0.6.0");
        }
        if (spec.devices().stream().anyMatch(d -> Character.isDigit(d.name().charAt(0)))) {
            minimum = max(minimum, "0.5.0");
        }
        minimum = max(minimum, minimumFor(spec.containerEdits()));
        for (CdiSpec.Device device : spec.devices()) {
            minimum = max(minimum, minimumFor(device.containerEdits()));
        }
        return minimum;
    }

    private static String minimumFor(CdiSpec.ContainerEdits edits) {
        String minimum = "0.3.0";
        if (edits.mounts().stream().anyMatch(m -> m.type().isPresent())) {
            minimum = max(minimum, "0.4.0");
        }
        if (edits.deviceNodes().stream().anyMatch(n -> n.hostPath().isPresent())) {
            minimum = max(minimum, "0.5.0");
        }
        if (edits.intelRdt().isPresent() || !edits.additionalGids().isEmpty()) {
            minimum = max(minimum, "0.7.0");
        }
        if (!edits.netDevices().isEmpty() || edits.intelRdt().filter(r -> !r.schemata().isEmpty() || r.enableMonitoring()).isPresent()) {
            minimum = max(minimum, "1.1.0");
        }
        return minimum;
    }

    /**
     * Checks a declared version: known (a leading {@code v} allowed) and at least what the content needs.
     *
     * @throws CdiException in the CDI library's words otherwise
     */
    public static void requireValid(CdiSpec spec) {
        String declared = spec.cdiVersion().startsWith("v") ? spec.cdiVersion().substring(1) : spec.cdiVersion();
        if (!KNOWN.contains(declared)) {
            throw new CdiException("cdiVersion was '" + spec.cdiVersion() + "' but it is no CDI version (invalid version \""
                    + spec.cdiVersion() + "\"; known: " + KNOWN + ")");
        }
        String needed = minimumFor(spec);
        if (compare(declared, needed) < 0) {
            throw new CdiException("cdiVersion was '" + spec.cdiVersion() + "' but the spec's content needs at least "
                    + needed + " (the spec version must be at least v" + needed + ")");
        }
    }

    static int compare(String a, String b) {
        return Integer.compare(KNOWN.indexOf(a), KNOWN.indexOf(b));
    }

    private static String max(String a, String b) {
        return compare(a, b) >= 0 ? a : b;
    }
}
