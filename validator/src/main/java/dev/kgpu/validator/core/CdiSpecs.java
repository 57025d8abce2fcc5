package dev.kgpu.validator.core;

import java.util.List;
import java.util.Map;

/**
 * The Container Device Interface specs of a directory such as {@code /var/run/cdi}, as a container runtime loads
 * them: what it can resolve, and which files it could not load.
 */
public interface CdiSpecs {

    /** The directory, for messages. */
    String directory();

    /**
     * Loads the directory's specs.
     *
     * @throws ComponentFailure with {@link Layer#RUNTIME} when the directory does not exist or cannot be listed
     */
    Loaded load();

    /**
     * One load of the directory.
     *
     * @param kinds  each kind with a spec that loaded, and those spec files
     * @param errors each file that did not load (or whose devices conflict), and why
     */
    interface Loaded {
        Map<String, List<String>> kinds();

        Map<String, String> errors();

        /** The fully-qualified names ({@code vendor/class=name}) among {@code names} that do not resolve. */
        List<String> unresolvable(List<String> names);
    }
}
