package dev.kgpu.config.v1;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A fully-qualified extended resource name under {@code nvidia.com/}, as NVIDIA's
 * {@code NewResourceName} builds it: the prefix is added when missing ({@code gpu} becomes
 * {@code nvidia.com/gpu}), the whole name is at most 63 characters, and the part after the slash is a
 * DNS subdomain (lower-case letters, digits, '-' and '.'), which also makes it a valid Kubernetes
 * qualified name.
 *
 * @param value the full name, e.g. {@code nvidia.com/gpu.shared}
 */
public record ResourceName(String value) {

    public static final String PREFIX = "nvidia.com";
    public static final int MAX_LENGTH = 63;
    /** The suffix {@code renameByDefault} appends. */
    public static final String SHARED_SUFFIX = ".shared";

    private static final Pattern DNS_SUBDOMAIN = Pattern.compile(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    /** @throws IllegalArgumentException whose message is the reason, worded to follow "but it" */
    public ResourceName {
        Objects.requireNonNull(value, "value");
        if (!value.startsWith(PREFIX + "/")) {
            throw new IllegalArgumentException("must start with '" + PREFIX + "/'");
        }
        if (value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("must be at most " + MAX_LENGTH
                    + " characters with the '" + PREFIX + "/' prefix, but '" + value + "' has " + value.length());
        }
        String name = value.substring(PREFIX.length() + 1);
        if (!DNS_SUBDOMAIN.matcher(name).matches()) {
            throw new IllegalArgumentException("must be a DNS subdomain after '" + PREFIX + "/': lower-case"
                    + " letters, digits, '-' and '.', starting and ending with a letter or digit");
        }
    }

    /** {@code gpu} or {@code nvidia.com/gpu} → {@code nvidia.com/gpu}, as NVIDIA's config does. */
    public static ResourceName of(String text) {
        return new ResourceName(text.startsWith(PREFIX + "/") ? text : PREFIX + "/" + text);
    }

    /** The part after {@code nvidia.com/}: {@code gpu}, {@code mig-1g.5gb}, {@code gpu.shared}. */
    public String name() {
        return value.substring(PREFIX.length() + 1);
    }

    /** {@code nvidia.com/gpu} → {@code nvidia.com/gpu.shared}, the name {@code renameByDefault} gives. */
    public ResourceName sharedRename() {
        return new ResourceName(value + SHARED_SUFFIX);
    }

    @Override
    public String toString() {
        return value;
    }
}
