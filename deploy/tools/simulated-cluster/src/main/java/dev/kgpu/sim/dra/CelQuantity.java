package dev.kgpu.sim.dra;

import io.fabric8.kubernetes.api.model.Quantity;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * A Kubernetes quantity as Kubernetes' CEL library {@code quantity} has it: a device's capacity
 * ({@code device.capacity["gpu.nvidia.com"].memory}) and {@code quantity("40Gi")}. Equal when the amounts are
 * ({@code quantity("1Gi") == quantity("1024Mi")}). Immutable.
 *
 * @param amount the amount, e.g. {@code 42949672960} for {@code 40Gi}
 * @param text   as written
 */
public record CelQuantity(BigDecimal amount, String text) implements Comparable<CelQuantity> {

    public CelQuantity {
        Objects.requireNonNull(amount, "amount");
        Objects.requireNonNull(text, "text");
    }

    /**
     * Parses a quantity ({@code 40Gi}, {@code 1.5}, {@code 100m}, {@code 1e3}).
     *
     * @throws IllegalArgumentException naming the text when it is not one
     */
    public static CelQuantity parse(String text) {
        try {
            return of(new Quantity(text));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("'" + text + "' is not a quantity: " + e.getMessage(), e);
        }
    }

    /** A ResourceSlice's capacity value. */
    public static CelQuantity of(Quantity quantity) {
        String text = quantity.getAmount() + (quantity.getFormat() == null ? "" : quantity.getFormat());
        return new CelQuantity(Quantity.getAmountInBytes(quantity), text);
    }

    /** Whether {@code text} parses. */
    public static boolean isValid(String text) {
        try {
            parse(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    public CelQuantity add(CelQuantity other) {
        BigDecimal sum = amount.add(other.amount);
        return new CelQuantity(sum, sum.toPlainString());
    }

    public CelQuantity subtract(CelQuantity other) {
        BigDecimal difference = amount.subtract(other.amount);
        return new CelQuantity(difference, difference.toPlainString());
    }

    public boolean isInteger() {
        return amount.signum() == 0 || amount.stripTrailingZeros().scale() <= 0;
    }

    @Override
    public int compareTo(CelQuantity other) {
        return amount.compareTo(other.amount);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CelQuantity that && amount.compareTo(that.amount) == 0;
    }

    @Override
    public int hashCode() {
        return amount.stripTrailingZeros().hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
