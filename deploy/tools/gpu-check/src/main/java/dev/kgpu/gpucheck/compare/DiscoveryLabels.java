package dev.kgpu.gpucheck.compare;

import dev.kgpu.gpucheck.node.Fields;
import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.node.NodeValues.GpuValues;
import dev.kgpu.gpucheck.node.Val;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The labels discovery must publish for a node, worked out here from nvml-ffm's and nvidia-smi's readings
 * (GFD's rules restated, not discovery's code): the labelled model is that of the lowest-indexed GPU with
 * MIG off (else of GPU 0), {@code gpu.count} counts the GPUs of that model, {@code gpu.product} is its name
 * with characters outside {@code [A-Za-z0-9-_. ]} dropped and spaces turned into {@code -}, {@code gpu.family}
 * follows the compute capability, {@code mig.capable} is whether any GPU has a MIG mode.
 */
public final class DiscoveryLabels {

    public static final String STEP = "discovery";

    private DiscoveryLabels() {
    }

    /** Compares the published {@code labels} with what {@code nvml} (and {@code smi}, when read) say. */
    public static List<Finding> compare(Map<String, String> labels, NodeValues nvml, Optional<NodeValues> smi) {
        List<Finding> findings = new ArrayList<>();
        Map<String, Val> published = new LinkedHashMap<>();
        labels.forEach((k, v) -> published.put(k, Val.text(v)));
        expected(nvml).forEach((label, value) -> findings.add(new Compare(STEP, "node", "nvml-ffm")
                .exact(label, published.getOrDefault(label, Val.absent()), value)));
        smi.ifPresent(s -> expected(s).forEach((label, value) ->
                findings.add(new Compare(STEP, "node", "nvidia-smi").exact(label, published.getOrDefault(label, Val.absent()), value))));
        return findings;
    }

    /** The labels as one source's reading implies them; a value the source lacks is {@link Val.Absent}. */
    static Map<String, Val> expected(NodeValues node) {
        Map<String, Val> e = new LinkedHashMap<>();
        e.put("nvidia.com/cuda.driver-version.full", node.system(Fields.DRIVER_VERSION));
        e.put("nvidia.com/cuda.runtime-version.full", node.system(Fields.CUDA_VERSION));
        if (node.gpus().isEmpty()) {
            return e;
        }
        GpuValues model = node.gpus().stream().filter(g -> !g.migEnabled()).min(Comparator.comparingInt(GpuValues::index))
                .orElse(node.gpus().getFirst());
        Val name = model.get(Fields.PRODUCT_NAME);
        e.put("nvidia.com/gpu.product", name instanceof Val.Text(String n) ? Val.text(product(n)) : name);
        e.put("nvidia.com/gpu.count", Val.text(Long.toString(node.gpus().stream()
                .filter(g -> g.get(Fields.PRODUCT_NAME).equals(name)).count())));
        e.put("nvidia.com/gpu.memory", model.get(Fields.FB_TOTAL) instanceof Val.Num(double mib)
                ? Val.text(Long.toString((long) mib)) : model.get(Fields.FB_TOTAL));
        Val cap = model.get(Fields.COMPUTE_CAP);
        if (cap instanceof Val.Text(String c) && c.matches("\\d+\\.\\d+")) {
            int major = Integer.parseInt(c.substring(0, c.indexOf('.')));
            int minor = Integer.parseInt(c.substring(c.indexOf('.') + 1));
            e.put("nvidia.com/gpu.compute.major", Val.text(Integer.toString(major)));
            e.put("nvidia.com/gpu.compute.minor", Val.text(Integer.toString(minor)));
            e.put("nvidia.com/gpu.family", Val.text(family(major, minor)));
        } else {
            e.put("nvidia.com/gpu.compute.major", cap);
            e.put("nvidia.com/gpu.compute.minor", cap);
            e.put("nvidia.com/gpu.family", cap);
        }
        boolean anyMig = node.gpus().stream().anyMatch(g -> g.get(Fields.MIG_CURRENT) instanceof Val.Text);
        boolean migKnown = node.gpus().stream().noneMatch(g -> g.get(Fields.MIG_CURRENT) instanceof Val.Absent);
        e.put("nvidia.com/mig.capable", migKnown || anyMig ? Val.text(Boolean.toString(anyMig)) : Val.absent());
        return e;
    }

    /** GFD's product label value: {@code NVIDIA H100 80GB HBM3} becomes {@code NVIDIA-H100-80GB-HBM3}. */
    static String product(String name) {
        String kept = name.replaceAll("[^A-Za-z0-9\\-_. ]", "").strip();
        return kept.replaceAll(" +", "-");
    }

    /**
     * GFD's architecture family of a compute capability. A deliberate copy of the table discovery labels with
     * ({@code dev.kgpu.discovery.labels.ResourceLabeler}), restated from GFD rather than imported: this check is an oracle, and an
     * oracle that called discovery's code would agree with discovery's mistakes. Keep it in step with GFD, not with
     * discovery.
     */
    static String family(int major, int minor) {
        return switch (major) {
            case 1 -> "tesla";
            case 2 -> "fermi";
            case 3 -> "kepler";
            case 5 -> "maxwell";
            case 6 -> "pascal";
            case 7 -> minor < 5 ? "volta" : "turing";
            case 8 -> minor < 9 ? "ampere" : "ada-lovelace";
            case 9 -> "hopper";
            case 10, 12 -> "blackwell";
            case 13 -> "rubin";
            default -> "undefined";
        };
    }
}
