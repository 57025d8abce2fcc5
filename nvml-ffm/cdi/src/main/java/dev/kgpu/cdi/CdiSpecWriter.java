package dev.kgpu.cdi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Writes and removes the spec of one kind in a CDI spec directory ({@code KGPU_CDI_SPEC_DIR}, default
 * {@code /var/run/cdi}), as the CDI library's {@code WriteSpec} does: the directory is created (0755), the JSON goes
 * to a temporary {@code spec.*.tmp} next to the target and is renamed over it, so a runtime reading the directory
 * sees the old spec or the new one, never half of one; the file and the directory are synced before a write returns
 * ({@link DurableFiles}), so a spec written is a spec on disk. The file is {@code <vendor>-<class>.json} (0644), or for a
 * transient spec (one per DRA claim) {@code <vendor>-<class>_<id>.json}.
 *
 * <p>Thread-safe: each write uses its own temporary file.
 */
public final class CdiSpecWriter {

    /** The default spec directory, the one CDI gives the highest priority. */
    public static final Path DEFAULT_DIRECTORY = Path.of("/var/run/cdi");

    private static final Set<PosixFilePermission> SPEC_PERMISSIONS = PosixFilePermissions.fromString("rw-r--r--");

    private final Path directory;

    public CdiSpecWriter(Path directory) {
        this.directory = Objects.requireNonNull(directory, "directory");
    }

    public Path directory() {
        return directory;
    }

    /** Where the spec of {@code kind} goes. */
    public Path fileFor(String kind) {
        return directory.resolve(CdiNames.specFileName(kind, ".json"));
    }

    /**
     * Validates {@code spec} (names, version) and replaces the kind's spec file with it.
     *
     * @return the file written
     * @throws CdiException when the spec is invalid or cannot be written (nothing is left half-written)
     */
    public Path write(CdiSpec spec) {
        return writeTo(spec, fileFor(spec.kind()));
    }

    /** Where the transient spec of {@code kind} for {@code id} goes ({@link CdiNames#transientSpecFileName}). */
    public Path transientFileFor(String kind, String id) {
        return directory.resolve(CdiNames.transientSpecFileName(kind, id, ".json"));
    }

    /**
     * Validates {@code spec} and replaces its transient spec file for {@code id}, e.g. a DRA claim's
     * {@code k8s.gpu.nvidia.com-claim_<uid>.json}, the same way as {@link #write(CdiSpec)}.
     *
     * @return the file written
     * @throws CdiException when the spec is invalid or cannot be written (nothing is left half-written)
     */
    public Path writeTransient(CdiSpec spec, String id) {
        return writeTo(spec, transientFileFor(spec.kind(), id));
    }

    /**
     * Removes the transient spec of {@code kind} for {@code id}, as JSON and as YAML (another writer's), if there is one.
     *
     * @return whether a file was removed
     */
    public boolean removeTransient(String kind, String id) {
        boolean removed = false;
        for (String extension : List.of(".json", ".yaml")) {
            Path target = directory.resolve(CdiNames.transientSpecFileName(kind, id, extension));
            try {
                removed |= Files.deleteIfExists(target);
            } catch (IOException e) {
                throw new CdiException("CDI spec " + target + " could not be removed: " + e.getMessage(), e);
            }
        }
        return removed;
    }

    private Path writeTo(CdiSpec spec, Path target) {
        CdiVersion.requireValid(spec);
        try {
            Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            DurableFiles.replace(target, CdiJson.write(spec).getBytes(StandardCharsets.UTF_8), "spec.", SPEC_PERMISSIONS);
            return target;
        } catch (IOException e) {
            throw new CdiException("CDI spec " + target + " could not be written: " + e.getMessage(), e);
        }
    }

    /**
     * Removes the spec of {@code kind}, if there is one.
     *
     * @return whether a file was removed
     */
    public boolean remove(String kind) {
        Path target = fileFor(kind);
        try {
            return Files.deleteIfExists(target);
        } catch (IOException e) {
            throw new CdiException("CDI spec " + target + " could not be removed: " + e.getMessage(), e);
        }
    }
}
