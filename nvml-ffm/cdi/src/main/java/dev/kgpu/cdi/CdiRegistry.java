package dev.kgpu.cdi;

import dev.kgpu.config.BoundedFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The CDI specs of a node, loaded the way the CDI library's cache (containerd, CRI-O, Podman) loads them, and the
 * resolution of fully-qualified names into container edits.
 *
 * <ul>
 *   <li>Directories in priority order, later wins: by default {@code /etc/cdi} then {@code /var/run/cdi}. A missing
 *       directory is skipped; only regular {@code *.json} and {@code *.yaml} files directly in it are read.</li>
 *   <li>A file that does not load is recorded in {@link #errors()}; the other files still load.</li>
 *   <li>The same qualified device in two specs: the higher-priority directory wins; within one directory the
 *       device is dropped and a {@code conflicting device} error recorded for both files.</li>
 *   <li>{@link #resolve} applies each spec's own edits once, then each device's, in the order asked; one unknown
 *       name fails the whole request with the runtime's {@code unresolvable CDI devices ...} and nothing is
 *       injected.</li>
 * </ul>
 *
 * <p>An immutable snapshot; {@link #load} again to see changed files. Thread-safe.
 */
public final class CdiRegistry {

    /** CDI's default directories, lowest priority first. */
    public static final List<Path> DEFAULT_DIRECTORIES = List.of(Path.of("/etc/cdi"), Path.of("/var/run/cdi"));

    /** A loaded spec and where it came from. */
    public record LoadedSpec(Path file, int priority, CdiSpec spec) {
    }

    private final Map<String, Entry> devices;
    private final Map<Path, String> errors;
    private final List<LoadedSpec> specs;

    private record Entry(LoadedSpec spec, CdiSpec.Device device) {
    }

    private CdiRegistry(Map<String, Entry> devices, Map<Path, String> errors, List<LoadedSpec> specs) {
        this.devices = devices;
        this.errors = errors;
        this.specs = specs;
    }

    /** Loads every spec in {@code directories} (lowest priority first). */
    public static CdiRegistry load(List<Path> directories) {
        Map<Path, String> errors = new LinkedHashMap<>();
        List<LoadedSpec> specs = new ArrayList<>();
        for (int priority = 0; priority < directories.size(); priority++) {
            Path dir = directories.get(priority);
            if (!Files.isDirectory(dir)) {
                continue;
            }
            List<Path> files = new ArrayList<>();
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*.{json,yaml}")) {
                entries.forEach(files::add);
            } catch (IOException e) {
                errors.put(dir, "could not list " + dir + ": " + e.getMessage());
                continue;
            }
            files.sort(Comparator.comparing(Path::toString));
            for (Path file : files) {
                if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file)) {
                    continue;
                }
                try {
                    CdiSpec spec = CdiJson.parse(new String(BoundedFile.readBytes(file, CdiJson.MAX_BYTES),
                            StandardCharsets.UTF_8), file.toString());
                    CdiVersion.requireValid(spec);
                    specs.add(new LoadedSpec(file, priority, spec));
                } catch (CdiException e) {
                    errors.put(file, e.getMessage().startsWith(file.toString()) ? e.getMessage() : file + ": " + e.getMessage());
                } catch (IOException e) {
                    errors.put(file, file + ": could not be read: " + e.getMessage());
                }
            }
        }
        Map<String, Entry> devices = new HashMap<>();
        Set<String> conflicting = new LinkedHashSet<>();
        for (LoadedSpec loaded : specs) {
            for (CdiSpec.Device device : loaded.spec().devices()) {
                String name = loaded.spec().kind() + "=" + device.name();
                Entry existing = devices.get(name);
                if (existing == null || existing.spec().priority() < loaded.priority()) {
                    devices.put(name, new Entry(loaded, device));
                    conflicting.remove(name);
                } else if (existing.spec().priority() == loaded.priority()) {
                    conflicting.add(name);
                    String message = "conflicting device \"" + name + "\" (specs " + existing.spec().file() + ", "
                            + loaded.file() + ")";
                    errors.merge(existing.spec().file(), message, (a, b) -> a + "; " + b);
                    errors.merge(loaded.file(), message, (a, b) -> a + "; " + b);
                }
            }
        }
        conflicting.forEach(devices::remove);
        return new CdiRegistry(Map.copyOf(devices), Map.copyOf(errors), List.copyOf(specs));
    }

    /** Every loadable spec, in load order. */
    public List<LoadedSpec> specs() {
        return specs;
    }

    /** Files (or directories) that did not load, and why. */
    public Map<Path, String> errors() {
        return errors;
    }

    /** Every fully-qualified device name that resolves. */
    public Set<String> deviceNames() {
        return Set.copyOf(devices.keySet());
    }

    /** The device a fully-qualified name resolves to. */
    public Optional<CdiSpec.Device> device(String qualifiedName) {
        return Optional.ofNullable(devices.get(qualifiedName)).map(Entry::device);
    }

    /** The names among {@code qualifiedNames} that do not resolve, in order. */
    public List<String> unresolvable(List<String> qualifiedNames) {
        return qualifiedNames.stream().filter(n -> !devices.containsKey(n)).distinct().toList();
    }

    /**
     * The edits injecting {@code qualifiedNames} makes: each spec's own edits once (when its first device is
     * met), then each device's edits, in the order given.
     *
     * @throws CdiException {@code unresolvable CDI devices <names>} when any name does not resolve
     */
    public CdiSpec.ContainerEdits resolve(List<String> qualifiedNames) {
        List<String> missing = unresolvable(qualifiedNames);
        if (!missing.isEmpty()) {
            throw new CdiException("unresolvable CDI devices " + String.join(", ", missing));
        }
        CdiSpec.ContainerEdits edits = CdiSpec.ContainerEdits.EMPTY;
        Set<LoadedSpec> applied = new LinkedHashSet<>();
        for (String name : new LinkedHashSet<>(qualifiedNames)) {
            Entry entry = devices.get(name);
            if (applied.add(entry.spec())) {
                edits = edits.append(entry.spec().spec().containerEdits());
            }
            edits = edits.append(entry.device().containerEdits());
        }
        return edits;
    }
}
