package dev.kgpu.config.v1;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One entry of {@code sharing.*.resources[].devices}: a full-GPU index ({@code 0}), a MIG index
 * {@code "<gpu>:<mig>"} ({@code "0:1"}), a GPU UUID ({@code GPU-b1028956-cfa2-0990-bf4a-5da9abb51763}) or a
 * MIG UUID ({@code MIG-<uuid>}, or the older {@code MIG-GPU-<uuid>/<gi>/<ci>}). kgpu honours these
 * (NVIDIA v0.20 parses them and then replicates every device anyway, its issue #1786).
 */
public sealed interface DeviceRef permits DeviceRef.GpuIndex, DeviceRef.MigIndex, DeviceRef.GpuUuid, DeviceRef.MigUuid {

    /** The reference as NVIDIA's config writes it: {@code 0}, {@code 0:1}, {@code GPU-...}. */
    String text();

    /**
     * A UUID in every form Go's {@code github.com/google/uuid.Parse} (NVIDIA's check) accepts: dashed,
     * dashed in braces, {@code urn:uuid:}-prefixed, or 32 hex digits.
     */
    String UUID = "(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
            + "|\\{[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\}"
            + "|(?i:urn:uuid:)[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
            + "|[0-9a-fA-F]{32})";

    record GpuIndex(int index) implements DeviceRef {
        public GpuIndex {
            if (index < 0) {
                throw new IllegalArgumentException("must not be negative");
            }
        }

        @Override
        public String text() {
            return Integer.toString(index);
        }
    }

    record MigIndex(int gpu, int mig) implements DeviceRef {
        public MigIndex {
            if (gpu < 0 || mig < 0) {
                throw new IllegalArgumentException("must not hold negative indices");
            }
        }

        @Override
        public String text() {
            return gpu + ":" + mig;
        }
    }

    record GpuUuid(String uuid) implements DeviceRef {
        private static final Pattern FORM = Pattern.compile("GPU-" + UUID);

        public GpuUuid {
            Objects.requireNonNull(uuid, "uuid");
            if (!FORM.matcher(uuid).matches()) {
                throw new IllegalArgumentException("must be a GPU UUID such as GPU-b1028956-cfa2-0990-bf4a-5da9abb51763");
            }
        }

        @Override
        public String text() {
            return uuid;
        }
    }

    record MigUuid(String uuid) implements DeviceRef {
        private static final Pattern FORM = Pattern.compile("MIG-(" + UUID + "|GPU-" + UUID + "/[0-9]+/[0-9]+)");

        public MigUuid {
            Objects.requireNonNull(uuid, "uuid");
            if (!FORM.matcher(uuid).matches()) {
                throw new IllegalArgumentException("must be a MIG UUID such as MIG-<uuid> or MIG-GPU-<uuid>/<gi>/<ci>");
            }
        }

        @Override
        public String text() {
            return uuid;
        }
    }

    /**
     * Classifies {@code text} as NVIDIA's {@code ReplicatedDeviceRef} does.
     *
     * @throws IllegalArgumentException whose message is the reason, worded to follow "but it"
     */
    static DeviceRef parse(String text) {
        Matcher index = Pattern.compile("([0-9]+)(?::([0-9]+))?").matcher(text);
        if (index.matches()) {
            try {
                int gpu = Integer.parseInt(index.group(1));
                return index.group(2) == null ? new GpuIndex(gpu) : new MigIndex(gpu, Integer.parseInt(index.group(2)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("must hold indices that fit in an int");
            }
        }
        if (text.startsWith("GPU-") && GpuUuid.FORM.matcher(text).matches()) {
            return new GpuUuid(text);
        }
        if (text.startsWith("MIG-") && MigUuid.FORM.matcher(text).matches()) {
            return new MigUuid(text);
        }
        throw new IllegalArgumentException("must be a GPU index (0), a MIG index ('0:1'), a GPU UUID (GPU-<uuid>)"
                + " or a MIG UUID (MIG-<uuid> or MIG-GPU-<uuid>/<gi>/<ci>)");
    }
}
