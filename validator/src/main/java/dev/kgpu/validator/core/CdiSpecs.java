package dev.kgpu.validator.core;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/** The Container Device Interface specs in a directory such as {@code /var/run/cdi}. */
public interface CdiSpecs {

    /** The directory, for messages. */
    String directory();

    /**
     * Reads every {@code *.yaml}, {@code *.yml} and {@code *.json} spec in the directory.
     *
     * @throws ValidationFailure with {@link Layer#RUNTIME} when a spec cannot be read or parsed
     */
    List<Spec> read();

    /**
     * One spec file.
     *
     * @param source      the file
     * @param kind        e.g. {@code nvidia.com/gpu}
     * @param deviceNames the {@code devices[].name} values, e.g. {@code 0}, {@code GPU-...}, {@code all}
     */
    record Spec(String source, String kind, Set<String> deviceNames) {
        public Spec {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(kind, "kind");
            deviceNames = Set.copyOf(deviceNames);
        }
    }
}
