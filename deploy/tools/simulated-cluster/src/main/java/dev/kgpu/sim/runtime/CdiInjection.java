package dev.kgpu.sim.runtime;

import dev.kgpu.cdi.CdiException;
import dev.kgpu.cdi.CdiNames;
import dev.kgpu.cdi.CdiRegistry;
import dev.kgpu.cdi.CdiSpec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The simulated node's container runtime's CDI step, as containerd (with {@code enable_cdi}) and CRI-O take it:
 * the names in the CRI request's {@code cdi_devices} and in {@code cdi.k8s.io/*} annotations are resolved through
 * the node's spec directories, loaded afresh for each container as the runtimes' watching cache would see them;
 * one unresolvable name fails the container's creation with the runtime's error and nothing is injected.
 *
 * <p>Immutable; safe for concurrent use.
 */
public final class CdiInjection {

    /** The annotation prefix the CDI library parses ({@code pkg/cdi/annotations.go}). */
    public static final String ANNOTATION_PREFIX = "cdi.k8s.io/";

    private final List<Path> specDirectories;

    /** @param specDirectories lowest priority first, as containerd's {@code cdi_spec_dirs} */
    public CdiInjection(List<Path> specDirectories) {
        this.specDirectories = List.copyOf(specDirectories);
    }

    public List<Path> specDirectories() {
        return specDirectories;
    }

    /** What one container was given: the names asked for and the merged edits they resolved to. */
    public record Injected(List<String> names, CdiSpec.ContainerEdits edits) {
        public Injected {
            names = List.copyOf(names);
            Objects.requireNonNull(edits, "edits");
        }

        /** The names' device parts, e.g. {@code GPU-...} or {@code 0:1}, of the given kind. */
        public List<String> deviceNames(String kind) {
            return names.stream().map(CdiNames::parse).filter(q -> q.kind().equals(kind)).map(CdiNames.Qualified::name).toList();
        }
    }

    /**
     * The CDI names a container asks for: the CRI {@code cdi_devices} first, then each {@code cdi.k8s.io/*}
     * annotation's comma-separated names (annotations in key order), without repeats.
     */
    public static List<String> requested(List<String> cdiDevices, Map<String, String> annotations) {
        LinkedHashSet<String> names = new LinkedHashSet<>();
        cdiDevices.stream().map(String::strip).filter(n -> !n.isEmpty()).forEach(names::add);
        new TreeMap<>(annotations).forEach((key, value) -> {
            if (key.startsWith(ANNOTATION_PREFIX)) {
                for (String name : value.split(",")) {
                    if (!name.isBlank()) {
                        names.add(name.strip());
                    }
                }
            }
        });
        return new ArrayList<>(names);
    }

    /**
     * Resolves {@code names}.
     *
     * @throws CdiException with containerd's message ({@code failed to create containerd container: CDI device
     *                      injection failed: unresolvable CDI devices ...}) when any name does not resolve
     */
    public Injected inject(List<String> names) {
        if (names.isEmpty()) {
            return new Injected(List.of(), CdiSpec.ContainerEdits.EMPTY);
        }
        CdiRegistry registry = CdiRegistry.load(specDirectories);
        try {
            return new Injected(names, registry.resolve(names));
        } catch (CdiException e) {
            throw new CdiException("failed to create containerd container: CDI device injection failed: " + e.getMessage(), e);
        }
    }
}
