package dev.kgpu.validator.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code toolkit}: the device nodes the container runtime injects exist ({@code /dev/nvidiactl},
 * {@code /dev/nvidia-uvm} and {@code /dev/nvidiaN} for each GPU's minor number) and, when a CDI spec
 * directory is given, a spec of kind {@code nvidia.com/gpu} names every GPU by index or UUID.
 *
 * <p>Device nodes must be character devices. A simulated node (no GPU, no kernel driver) has regular
 * files instead; {@code acceptRegularFiles} lets those pass and is off in production.
 */
public final class ToolkitValidator implements ComponentValidator {

    /** The CDI kind NVIDIA's {@code nvidia-ctk cdi generate} writes. */
    public static final String GPU_CDI_KIND = "nvidia.com/gpu";

    private final GpuDriver driver;
    private final DeviceNodes deviceNodes;
    private final Optional<CdiSpecs> cdiSpecs;
    private final boolean acceptRegularFiles;

    public ToolkitValidator(GpuDriver driver, DeviceNodes deviceNodes, Optional<CdiSpecs> cdiSpecs,
                            boolean acceptRegularFiles) {
        this.driver = driver;
        this.deviceNodes = deviceNodes;
        this.cdiSpecs = cdiSpecs;
        this.acceptRegularFiles = acceptRegularFiles;
    }

    @Override
    public Component component() {
        return Component.TOOLKIT;
    }

    @Override
    public Evidence validate() {
        DriverSnapshot snapshot = driver.probe();
        List<String> required = new ArrayList<>(List.of("dev/nvidiactl", "dev/nvidia-uvm"));
        snapshot.gpus().forEach(gpu -> required.add("dev/nvidia" + gpu.minorNumber()));

        List<String> missing = new ArrayList<>();
        List<String> wrongKind = new ArrayList<>();
        for (String node : required) {
            switch (deviceNodes.kind(node)) {
                case CHARACTER_DEVICE -> { }
                case REGULAR_FILE -> {
                    if (!acceptRegularFiles) {
                        wrongKind.add(node + " is a regular file");
                    }
                }
                case OTHER -> wrongKind.add(node + " is neither a character device nor a file");
                case MISSING -> missing.add(node);
            }
        }
        if (!missing.isEmpty()) {
            throw new ValidationFailure(Layer.RUNTIME, "device node" + (missing.size() == 1 ? " " : "s ")
                    + String.join(", ", missing) + " missing under " + deviceNodes.root()
                    + "; the container runtime did not inject the GPUs (is the NVIDIA Container Toolkit"
                    + " configured for this runtime, or CDI enabled?)");
        }
        if (!wrongKind.isEmpty()) {
            throw new ValidationFailure(Layer.RUNTIME, String.join(", ", wrongKind) + " under "
                    + deviceNodes.root() + ", not a character device (regular files pass only on a simulated"
                    + " node, with KGPU_SIMULATED_DEVICE_NODES=true)");
        }
        String summary = required.size() + " device nodes under " + deviceNodes.root();
        if (cdiSpecs.isPresent()) {
            summary += "; " + checkCdi(cdiSpecs.get(), snapshot);
        }
        return Evidence.of(summary);
    }

    private static String checkCdi(CdiSpecs specs, DriverSnapshot snapshot) {
        Set<String> names = new HashSet<>();
        Set<String> sources = new LinkedHashSet<>();
        for (CdiSpecs.Spec spec : specs.read()) {
            if (spec.kind().equals(GPU_CDI_KIND)) {
                names.addAll(spec.deviceNames());
                sources.add(spec.source());
            }
        }
        if (sources.isEmpty()) {
            throw new ValidationFailure(Layer.RUNTIME, "no CDI spec in " + specs.directory() + " has kind "
                    + GPU_CDI_KIND + " (generate one with: nvidia-ctk cdi generate --output="
                    + specs.directory() + "/nvidia.yaml)");
        }
        List<String> unnamed = snapshot.gpus().stream()
                .filter(gpu -> !names.contains(Integer.toString(gpu.index())) && !names.contains(gpu.uuid()))
                .map(gpu -> "GPU " + gpu.index() + " (" + gpu.uuid() + ")")
                .toList();
        if (!unnamed.isEmpty()) {
            throw new ValidationFailure(Layer.RUNTIME, "the CDI specs " + String.join(", ", sources)
                    + " name no device for " + String.join(", ", unnamed)
                    + "; regenerate them with nvidia-ctk cdi generate after a driver or GPU change");
        }
        return "CDI " + String.join(", ", sources) + " names all " + snapshot.gpus().size() + " GPUs";
    }
}
