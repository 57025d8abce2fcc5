package dev.kgpu.discovery.labels;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An immutable set of node labels, ordered by key so that every rendering (feature file, log line, patch)
 * is the same for the same labels.
 *
 * <p>Thread-safety: immutable, safe to share.
 */
public final class Labels {

    /** GFD's timestamp label; the only label whose change alone never causes a write (see {@link #sameIgnoringTimestamp}). */
    public static final String TIMESTAMP = "nvidia.com/gfd.timestamp";

    private static final Labels EMPTY = new Labels(new TreeMap<>());

    private final SortedMap<String, String> entries;

    private Labels(TreeMap<String, String> entries) {
        this.entries = Collections.unmodifiableSortedMap(entries);
    }

    public static Labels empty() {
        return EMPTY;
    }

    public static Labels of(Map<String, String> labels) {
        TreeMap<String, String> copy = new TreeMap<>();
        labels.forEach((key, value) -> copy.put(Objects.requireNonNull(key, "label key"),
                Objects.requireNonNull(value, () -> "value of label " + key)));
        return new Labels(copy);
    }

    public static Labels of(String key, String value) {
        return of(Map.of(key, value));
    }

    /** Starts a set of labels built one at a time. */
    public static Builder builder() {
        return new Builder();
    }

    /** These labels with {@code later}'s put over them: a key in both takes {@code later}'s value (GFD's merge). */
    public Labels mergedWith(Labels later) {
        if (later.entries.isEmpty()) {
            return this;
        }
        if (entries.isEmpty()) {
            return later;
        }
        TreeMap<String, String> merged = new TreeMap<>(entries);
        merged.putAll(later.entries);
        return new Labels(merged);
    }

    /**
     * Whether these and {@code other} have the same keys and differ at most in the value of
     * {@link #TIMESTAMP}. A timestamp that appears or disappears ({@code GFD_NO_TIMESTAMP} toggled) is a
     * difference; a timestamp that only moved on is not.
     */
    public boolean sameIgnoringTimestamp(Labels other) {
        if (!entries.keySet().equals(other.entries.keySet())) {
            return false;
        }
        for (var entry : entries.entrySet()) {
            if (!entry.getKey().equals(TIMESTAMP) && !entry.getValue().equals(other.entries.get(entry.getKey()))) {
                return false;
            }
        }
        return true;
    }

    public String get(String key) {
        return entries.get(key);
    }

    public boolean containsKey(String key) {
        return entries.containsKey(key);
    }

    public int size() {
        return entries.size();
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The labels as an unmodifiable map ordered by key. */
    public SortedMap<String, String> asMap() {
        return entries;
    }

    /** GFD's feature-file form: one {@code key=value} line per label, ordered by key. */
    public String toFeatureFile() {
        StringBuilder text = new StringBuilder(entries.size() * 48);
        entries.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        return text.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Labels labels && entries.equals(labels.entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    @Override
    public String toString() {
        return entries.toString();
    }

    /** Collects labels; a later {@code put} of the same key replaces the earlier value. */
    public static final class Builder {
        private final TreeMap<String, String> entries = new TreeMap<>();

        private Builder() {
        }

        public Builder put(String key, String value) {
            entries.put(Objects.requireNonNull(key, "label key"), Objects.requireNonNull(value, () -> "value of label " + key));
            return this;
        }

        public Builder put(String key, long value) {
            return put(key, Long.toString(value));
        }

        public Builder put(String key, boolean value) {
            return put(key, Boolean.toString(value));
        }

        public Builder putAll(Labels labels) {
            entries.putAll(labels.entries);
            return this;
        }

        public Labels build() {
            return entries.isEmpty() ? EMPTY : new Labels(new TreeMap<>(entries));
        }
    }
}
