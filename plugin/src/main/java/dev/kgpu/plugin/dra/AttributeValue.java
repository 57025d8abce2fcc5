package dev.kgpu.plugin.dra;

import java.util.Objects;

/**
 * One typed value of a device attribute in a ResourceSlice ({@code resource.k8s.io/v1} {@code DeviceAttribute}:
 * exactly one of {@code string}, {@code int}, {@code bool}, {@code version}). CEL sees each with its type, so
 * {@code device.attributes["gpu.nvidia.com"].driverVersion.isGreaterThan(semver("550.0.0"))} works on a
 * {@link Version}. Immutable.
 */
public sealed interface AttributeValue {

    /** A string of at most 64 characters. */
    record Text(String value) implements AttributeValue {
        public Text {
            Objects.requireNonNull(value, "value");
        }
    }

    /** A 64-bit integer. */
    record Int(long value) implements AttributeValue {
    }

    /** A boolean. */
    record Bool(boolean value) implements AttributeValue {
    }

    /** A semantic version 2.0, e.g. {@code 9.0.0}. */
    record Version(String value) implements AttributeValue {
        public Version {
            Objects.requireNonNull(value, "value");
        }
    }
}
