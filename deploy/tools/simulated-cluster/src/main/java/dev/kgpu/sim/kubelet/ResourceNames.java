package dev.kgpu.sim.kubelet;

import java.util.regex.Pattern;

/**
 * The kubelet's check of a device plugin's resource name: {@code v1helper.IsExtendedResourceName}
 * (k8s.io/kubernetes pkg/apis/core/v1/helper). A name is an extended resource name when it has a
 * {@code /}, is not in a {@code *kubernetes.io/} namespace, does not start with {@code requests.}, and
 * {@code "requests." + name} is a valid qualified name.
 */
public final class ResourceNames {

    private static final String REQUESTS_PREFIX = "requests.";
    private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern DNS1123_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private ResourceNames() {
    }

    public static boolean isExtendedResourceName(String name) {
        if (name == null || !name.contains("/") || name.contains("kubernetes.io/") || name.startsWith(REQUESTS_PREFIX)) {
            return false;
        }
        return isQualifiedName(REQUESTS_PREFIX + name);
    }

    /** {@code validation.IsQualifiedName}: an optional DNS-subdomain prefix, a slash, a name of 1 to 63 characters. */
    static boolean isQualifiedName(String value) {
        String[] parts = value.split("/", -1);
        String name;
        if (parts.length == 1) {
            name = parts[0];
        } else if (parts.length == 2) {
            String prefix = parts[0];
            if (prefix.isEmpty() || prefix.length() > 253 || !DNS1123_SUBDOMAIN.matcher(prefix).matches()) {
                return false;
            }
            name = parts[1];
        } else {
            return false;
        }
        return !name.isEmpty() && name.length() <= 63 && QUALIFIED_NAME.matcher(name).matches();
    }
}
