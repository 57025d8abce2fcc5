package dev.kgpu.validator.core;

import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.config.v1.MigStrategy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code toolkit}: the device nodes the container runtime injects exist ({@code /dev/nvidiactl},
 * {@code /dev/nvidia-uvm} and {@code /dev/nvidiaN} for each GPU's minor number) and, when a CDI spec
 * directory is given, the specs there resolve every device: the toolkit's {@code nvidia.com/gpu} each GPU, the
 * device plugin's {@code k8s.device-plugin.nvidia.com/gpu} each device the plugin hands out.
 *
 * <p>Device nodes must be character devices. A simulated node (no GPU, no kernel driver) has regular
 * files instead; {@code acceptRegularFiles} lets those pass and is off in production.
 */
public final class ToolkitValidator implements ComponentValidator {

    /** The CDI kind NVIDIA's {@code nvidia-ctk cdi generate} writes. */
    public static final String GPU_CDI_KIND = "nvidia.com/gpu";
    /** The CDI kind the device plugin (NVIDIA's and kgpu's) writes for the names it hands out. */
    public static final String PLUGIN_CDI_KIND = NvidiaCdiGenerator.DEVICE_PLUGIN_KIND;
    private static final List<String> CDI_KINDS = List.of(GPU_CDI_KIND, PLUGIN_CDI_KIND);

    private final GpuDriver driver;
    private final DeviceNodes deviceNodes;
    private final Optional<CdiSpecs> cdiSpecs;
    private final boolean acceptRegularFiles;
    private final MigStrategy migStrategy;

    /** @param migStrategy the device plugin's, which decides the devices it hands out CDI names for */
    public ToolkitValidator(GpuDriver driver, DeviceNodes deviceNodes, Optional<CdiSpecs> cdiSpecs,
                            boolean acceptRegularFiles, MigStrategy migStrategy) {
        this.driver = driver;
        this.deviceNodes = deviceNodes;
        this.cdiSpecs = cdiSpecs;
        this.acceptRegularFiles = acceptRegularFiles;
        this.migStrategy = migStrategy;
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
            throw new ComponentFailure(Layer.RUNTIME, "device node" + (missing.size() == 1 ? " " : "s ")
                    + String.join(", ", missing) + " missing under " + deviceNodes.root()
                    + "; the container runtime did not inject the GPUs (is the NVIDIA Container Toolkit"
                    + " configured for this runtime, or CDI enabled?)");
        }
        if (!wrongKind.isEmpty()) {
            throw new ComponentFailure(Layer.RUNTIME, String.join(", ", wrongKind) + " under "
                    + deviceNodes.root() + ", not a character device (regular files pass only on a simulated"
                    + " node, with KGPU_SIMULATED_DEVICE_NODES=true)");
        }
        String summary = required.size() + " device nodes under " + deviceNodes.root();
        if (cdiSpecs.isPresent()) {
            summary += "; " + checkCdi(cdiSpecs.get(), snapshot);
        }
        return Evidence.of(summary);
    }

    /**
     * Each kind NVIDIA's stack writes that has a spec here must resolve every device through it: the toolkit's
     * {@code nvidia.com/gpu} names each GPU by index or UUID; the device plugin's
     * {@code k8s.device-plugin.nvidia.com/gpu} names each device the plugin hands out (under the MIG strategy:
     * GPUs, or the MIG devices of GPUs with MIG on) by UUID or index, as containerd resolves the names the plugin
     * puts in its Allocate answers.
     */
    private String checkCdi(CdiSpecs specs, DriverSnapshot snapshot) {
        CdiSpecs.Loaded loaded = specs.load();
        List<String> present = CDI_KINDS.stream().filter(loaded.kinds()::containsKey).toList();
        if (present.isEmpty()) {
            String problems = loaded.errors().isEmpty() ? "" : " (specs that did not load: "
                    + String.join("; ", loaded.errors().values()) + ")";
            throw new ComponentFailure(Layer.RUNTIME, "no CDI spec in " + specs.directory() + " has kind "
                    + GPU_CDI_KIND + " or " + PLUGIN_CDI_KIND + problems + " (generate one with: nvidia-ctk cdi generate"
                    + " --output=" + specs.directory() + "/nvidia.yaml, or turn on the device plugin's CDI strategy)");
        }
        List<String> verdicts = new ArrayList<>();
        for (String kind : present) {
            List<Device> devices = kind.equals(PLUGIN_CDI_KIND) ? advertised(snapshot) : wholeGpus(snapshot);
            List<String> unresolved = devices.stream()
                    .filter(d -> loaded.unresolvable(List.of(kind + "=" + d.uuid())).size() == 1
                            && loaded.unresolvable(List.of(kind + "=" + d.index())).size() == 1)
                    .map(Device::describe).toList();
            String sources = String.join(", ", loaded.kinds().get(kind));
            if (!unresolved.isEmpty()) {
                throw new ComponentFailure(Layer.RUNTIME, "the CDI specs " + sources + " resolve no " + kind
                        + " device for " + String.join(", ", unresolved) + (kind.equals(PLUGIN_CDI_KIND)
                        ? "; the device plugin rewrites its spec when its devices change: is it running with a CDI strategy?"
                        : "; regenerate them with nvidia-ctk cdi generate after a driver or GPU change"));
            }
            verdicts.add("CDI " + sources + (kind.equals(PLUGIN_CDI_KIND)
                    ? " resolves all " + devices.size() + " devices the plugin hands out"
                    : " names all " + devices.size() + " GPUs"));
        }
        return String.join("; ", verdicts);
    }

    /** A device the validator expects a CDI name for: its two ID forms. */
    private record Device(String uuid, String index, String describe) {
    }

    private static List<Device> wholeGpus(DriverSnapshot snapshot) {
        return snapshot.gpus().stream()
                .map(g -> new Device(g.uuid(), Integer.toString(g.index()), "GPU " + g.index() + " (" + g.uuid() + ")"))
                .toList();
    }

    /** What the plugin advertises: whole GPUs under MIG strategy none, else MIG devices where MIG is on. */
    private List<Device> advertised(DriverSnapshot snapshot) {
        List<Device> devices = new ArrayList<>();
        for (DriverSnapshot.Gpu gpu : snapshot.gpus()) {
            if (migStrategy == MigStrategy.NONE || gpu.migUuids().isEmpty()) {
                devices.add(new Device(gpu.uuid(), Integer.toString(gpu.index()), "GPU " + gpu.index() + " (" + gpu.uuid() + ")"));
                continue;
            }
            for (int i = 0; i < gpu.migUuids().size(); i++) {
                String uuid = gpu.migUuids().get(i);
                devices.add(new Device(uuid, gpu.index() + ":" + i, "MIG device " + gpu.index() + ":" + i + " (" + uuid + ")"));
            }
        }
        return devices;
    }
}
