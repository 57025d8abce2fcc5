package dev.kgpu.plugin.dra.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A claim's {@code sharing.mpsConfig} (NVIDIA's {@code MpsConfig}, {@code api/nvidia.com/resource/v1beta1}), decoded
 * and checked: the default active thread percentage its MPS daemon's clients get, and the pinned device memory limit
 * for every device, overridden per device (by UUID or by index into the claim's devices). Immutable.
 *
 * @param activeThreadPercentage {@code defaultActiveThreadPercentage}, from 1 to 100; empty: MPS's own default
 * @param pinnedMemoryBytes      {@code defaultPinnedDeviceMemoryLimit} in bytes; empty: none
 * @param perDeviceBytes         {@code defaultPerDevicePinnedMemoryLimit} in bytes, by the key the claim gave
 */
public record MpsConfig(OptionalInt activeThreadPercentage, Optional<Long> pinnedMemoryBytes, Map<String, Long> perDeviceBytes) {

    public static final String PERCENTAGE = "sharing.mpsConfig.defaultActiveThreadPercentage";
    public static final String PINNED = "sharing.mpsConfig.defaultPinnedDeviceMemoryLimit";
    public static final String PER_DEVICE = "sharing.mpsConfig.defaultPerDevicePinnedMemoryLimit";

    /** No {@code mpsConfig}: MPS's defaults. */
    public static final MpsConfig NONE = new MpsConfig(OptionalInt.empty(), Optional.empty(), Map.of());

    private static final Pattern QUANTITY = Pattern.compile("([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))"
            + "(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?");
    private static final long MIB = 1024 * 1024;

    public MpsConfig {
        Objects.requireNonNull(activeThreadPercentage, "activeThreadPercentage");
        Objects.requireNonNull(pinnedMemoryBytes, "pinnedMemoryBytes");
        perDeviceBytes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(perDeviceBytes)); // in the claim's order
    }

    /**
     * The pinned memory limit of each of {@code uuids} (the claim's devices the daemon serves, in order) in whole MiB,
     * as NVIDIA's driver normalises them: the default for every device, then each per-device entry, whose key is one of
     * {@code uuids} or an index into them. Devices without a limit are left out.
     *
     * @throws OpaqueConfigs.ConfigException a key that names none of {@code uuids}, or a limit under 1 MiB
     */
    public Map<String, Long> pinnedMemoryMiB(List<String> uuids) throws OpaqueConfigs.ConfigException {
        Map<String, Long> limits = new LinkedHashMap<>();
        if (pinnedMemoryBytes.isPresent()) {
            long mib = pinnedMemoryBytes.get() / MIB;
            if (mib <= 0) {
                throw new OpaqueConfigs.ConfigException(PINNED + " was '" + pinnedMemoryBytes.get() + "' bytes but it must be"
                        + " at least 1Mi (NVIDIA: invalid limit: default value set too low)");
            }
            uuids.forEach(uuid -> limits.put(uuid, mib));
        }
        for (Map.Entry<String, Long> entry : perDeviceBytes.entrySet()) {
            String uuid = device(entry.getKey(), uuids);
            long mib = entry.getValue() / MIB;
            if (mib <= 0) {
                throw new OpaqueConfigs.ConfigException(PER_DEVICE + "[" + entry.getKey() + "] was '" + entry.getValue()
                        + "' bytes but it must be at least 1Mi (NVIDIA: invalid limit: value set too low)");
            }
            limits.put(uuid, mib);
        }
        Map<String, Long> ordered = new LinkedHashMap<>();
        uuids.stream().filter(limits::containsKey).forEach(uuid -> ordered.put(uuid, limits.get(uuid)));
        return ordered;
    }

    private static String device(String key, List<String> uuids) throws OpaqueConfigs.ConfigException {
        if (uuids.contains(key)) {
            return key;
        }
        int index;
        try {
            index = Integer.parseInt(key);
        } catch (NumberFormatException e) {
            throw new OpaqueConfigs.ConfigException(PER_DEVICE + " names device '" + key + "', which is neither a UUID of"
                    + " the claim's devices " + uuids + " nor an index into them");
        }
        if (index < 0 || index >= uuids.size()) {
            throw new OpaqueConfigs.ConfigException(PER_DEVICE + " names device index " + index + ", but the claim's"
                    + " devices are " + uuids + " (indexes 0 to " + (uuids.size() - 1) + ")");
        }
        return uuids.get(index);
    }

    /**
     * A Kubernetes quantity ({@code 10Gi}, {@code 1.5G}, {@code 2e9}, {@code 1024}) in whole bytes, rounded up as
     * {@code resource.Quantity.Value()} does; empty when {@code text} is not one.
     */
    public static Optional<Long> bytes(String text) {
        Matcher m = QUANTITY.matcher(text.strip());
        if (text.isBlank() || !m.matches()) {
            return Optional.empty();
        }
        BigDecimal number = new BigDecimal(m.group(1));
        String suffix = m.group(2) == null ? "" : m.group(2);
        BigDecimal value = switch (suffix) {
            case "" -> number;
            case "Ki" -> number.multiply(BigDecimal.valueOf(1L << 10));
            case "Mi" -> number.multiply(BigDecimal.valueOf(1L << 20));
            case "Gi" -> number.multiply(BigDecimal.valueOf(1L << 30));
            case "Ti" -> number.multiply(BigDecimal.valueOf(1L << 40));
            case "Pi" -> number.multiply(BigDecimal.valueOf(1L << 50));
            case "Ei" -> number.multiply(BigDecimal.valueOf(1L << 60));
            case "n" -> number.scaleByPowerOfTen(-9);
            case "u" -> number.scaleByPowerOfTen(-6);
            case "m" -> number.scaleByPowerOfTen(-3);
            case "k" -> number.scaleByPowerOfTen(3);
            case "M" -> number.scaleByPowerOfTen(6);
            case "G" -> number.scaleByPowerOfTen(9);
            case "T" -> number.scaleByPowerOfTen(12);
            case "P" -> number.scaleByPowerOfTen(15);
            case "E" -> number.scaleByPowerOfTen(18);
            default -> {
                int exponent;
                try {
                    exponent = Integer.parseInt(suffix.substring(1));
                } catch (NumberFormatException e) {
                    yield null;
                }
                yield Math.abs(exponent) > 30 ? null : number.scaleByPowerOfTen(exponent);
            }
        };
        if (value == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(value.setScale(0, RoundingMode.CEILING).longValueExact());
        } catch (ArithmeticException e) {
            return Optional.empty();
        }
    }
}
