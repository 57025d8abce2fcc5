package dev.kgpu.cdi;

import java.util.regex.Pattern;

/**
 * CDI's naming rules (the CDI project's {@code pkg/parser/parser.go}): a kind is {@code <vendor>/<class>}, a
 * fully-qualified device name {@code <vendor>/<class>=<name>}.
 *
 * <p>Stateless and thread-safe.
 */
public final class CdiNames {

    /** Vendor and class: a letter first, a letter or digit last, letters, digits, {@code _ - .} between. */
    private static final Pattern QUALIFIER = Pattern.compile("[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?");
    /** A device name: a letter or digit at both ends, letters, digits, {@code _ - . :} between. */
    private static final Pattern DEVICE = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?");

    private CdiNames() {
    }

    /** {@code vendor/class=name}. */
    public static String qualified(String kind, String name) {
        return requireKind(kind) + "=" + requireDeviceName(name);
    }

    /** A fully-qualified name taken apart. */
    public record Qualified(String vendor, String deviceClass, String name) {
        public String kind() {
            return vendor + "/" + deviceClass;
        }

        @Override
        public String toString() {
            return kind() + "=" + name;
        }
    }

    /** Whether {@code text} is a fully-qualified CDI device name (as runtimes tell CDI names from paths). */
    public static boolean isQualified(String text) {
        try {
            parse(text);
            return true;
        } catch (CdiException e) {
            return false;
        }
    }

    /**
     * Splits {@code vendor/class=name} at the first {@code =}, then the kind at the first {@code /}.
     *
     * @throws CdiException when a part is missing or breaks the naming rules
     */
    public static Qualified parse(String text) {
        if (text == null || text.startsWith("/")) {
            throw new CdiException("CDI device name was '" + text + "' but it must be vendor/class=name, not a path");
        }
        int equals = text.indexOf('=');
        if (equals < 0) {
            throw new CdiException("CDI device name was '" + text + "' but it has no '=' (vendor/class=name)");
        }
        String kind = text.substring(0, equals);
        requireKind(kind);
        String name = text.substring(equals + 1);
        requireDeviceName(name);
        int slash = kind.indexOf('/');
        return new Qualified(kind.substring(0, slash), kind.substring(slash + 1), name);
    }

    /** @throws CdiException unless {@code kind} is {@code vendor/class} with valid parts */
    public static String requireKind(String kind) {
        if (kind == null) {
            throw new CdiException("kind was 'null' but it must be vendor/class, e.g. nvidia.com/gpu");
        }
        int slash = kind.indexOf('/');
        if (slash < 0 || !QUALIFIER.matcher(kind.substring(0, slash)).matches()
                || !QUALIFIER.matcher(kind.substring(slash + 1)).matches()) {
            throw new CdiException("kind was '" + kind + "' but it must be vendor/class, each starting with a letter,"
                    + " ending with a letter or digit, with letters, digits, '_', '-' and '.' between (e.g. nvidia.com/gpu)");
        }
        return kind;
    }

    /** @throws CdiException unless {@code name} is a valid device name */
    public static String requireDeviceName(String name) {
        if (name == null || !DEVICE.matcher(name).matches()) {
            throw new CdiException("devices[].name was '" + name + "' but it must start and end with a letter or digit"
                    + " and hold only letters, digits, '_', '-', '.' and ':'");
        }
        return name;
    }

    static String requireAbsolute(String field, String path) {
        if (path == null || !path.startsWith("/")) {
            throw new CdiException(field + " was '" + path + "' but it must be an absolute path");
        }
        return path;
    }

    /**
     * The file name {@code WriteSpec} gives a kind's spec: {@code <vendor>-<class>} plus the extension, e.g.
     * {@code k8s.device-plugin.nvidia.com-gpu.json}.
     */
    public static String specFileName(String kind, String extension) {
        requireKind(kind);
        return kind.replace('/', '-') + extension;
    }

    /**
     * The file name of a transient spec, one that lives as long as something else (a DRA claim), as the CDI
     * library's {@code GenerateTransientSpecName} builds it: {@code <vendor>-<class>_<id>} plus the extension, e.g.
     * {@code k8s.gpu.nvidia.com-claim_<claim UID>.json}.
     *
     * @throws CdiException when the kind or {@code id} cannot make a file name
     */
    public static String transientSpecFileName(String kind, String id, String extension) {
        requireKind(kind);
        if (id == null || id.isEmpty() || !DEVICE.matcher(id).matches() || id.contains(":")) {
            throw new CdiException("transient spec id was '" + id + "' but it must start and end with a letter or digit"
                    + " and hold only letters, digits, '_', '-' and '.'");
        }
        return kind.replace('/', '-') + "_" + id + extension;
    }
}
