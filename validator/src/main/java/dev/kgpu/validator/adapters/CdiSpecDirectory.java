package dev.kgpu.validator.adapters;

import dev.kgpu.cdi.CdiRegistry;
import dev.kgpu.validator.core.CdiSpecs;
import dev.kgpu.validator.core.ComponentFailure;
import dev.kgpu.validator.core.Layer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The CDI specs of one directory ({@code KGPU_CDI_SPEC_DIR}: {@code /var/run/cdi} or {@code /etc/cdi}), loaded by
 * nvml-ffm's {@link CdiRegistry} exactly as containerd and CRI-O load them: strictly, a file that does not load
 * costs only its own devices.
 */
public final class CdiSpecDirectory implements CdiSpecs {

    private final Path directory;

    public CdiSpecDirectory(Path directory) {
        this.directory = directory;
    }

    @Override
    public String directory() {
        return directory.toString();
    }

    @Override
    public Loaded load() {
        if (!Files.isDirectory(directory)) {
            throw new ComponentFailure(Layer.RUNTIME, "CDI spec directory " + directory
                    + " does not exist (KGPU_CDI_SPEC_DIR); generate specs with nvidia-ctk cdi generate, or turn on the"
                    + " device plugin's CDI strategy");
        }
        CdiRegistry registry = CdiRegistry.load(List.of(directory));
        Map<String, List<String>> kinds = new TreeMap<>();
        for (CdiRegistry.LoadedSpec spec : registry.specs()) {
            kinds.computeIfAbsent(spec.spec().kind(), k -> new ArrayList<>()).add(spec.file().toString());
        }
        Map<String, String> errors = new TreeMap<>();
        registry.errors().forEach((file, why) -> errors.put(file.toString(), why));
        return new Loaded() {
            @Override
            public Map<String, List<String>> kinds() {
                return kinds;
            }

            @Override
            public Map<String, String> errors() {
                return errors;
            }

            @Override
            public List<String> unresolvable(List<String> names) {
                return registry.unresolvable(names);
            }
        };
    }
}
