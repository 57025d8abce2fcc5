package dev.kgpu.gpucheck.compare;

import dev.kgpu.gpucheck.node.Fields;
import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.node.NodeValues.GpuValues;
import dev.kgpu.gpucheck.node.Val;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * nvml-ffm's reading of the node against nvidia-smi's: every GPU matched by PCI bus id (else UUID), then
 * each field with its {@link Tolerance}. Moving values are compared with the range of nvidia-smi's readings
 * taken just before and just after nvml-ffm's.
 */
public final class NodeComparison {

    public static final String STEP = "nvml";
    public static final String SOURCE = "nvidia-smi";

    /** Per-GPU fields compared with nvidia-smi, and how. */
    public static final Map<String, Tolerance> GPU_FIELDS = gpuFields();

    private NodeComparison() {
    }

    private static Map<String, Tolerance> gpuFields() {
        Map<String, Tolerance> f = new LinkedHashMap<>();
        f.put(Fields.UUID, Tolerance.EXACT);
        f.put(Fields.PRODUCT_NAME, Tolerance.EXACT);
        f.put(Fields.PCI_BUS_ID, Tolerance.EXACT);
        f.put(Fields.MINOR_NUMBER, Tolerance.EXACT);
        f.put(Fields.COMPUTE_CAP, Tolerance.EXACT);
        f.put(Fields.MIG_CURRENT, Tolerance.EXACT);
        f.put(Fields.MIG_PENDING, Tolerance.EXACT);
        f.put(Fields.ECC_CURRENT, Tolerance.EXACT);
        f.put(Fields.FB_TOTAL, Tolerance.fixed(1));
        f.put(Fields.FB_RESERVED, Tolerance.fixed(1));
        f.put(Fields.FB_USED, Tolerance.moving(32));
        f.put(Fields.FB_FREE, Tolerance.moving(32));
        f.put(Fields.GPU_TEMP, Tolerance.moving(3));
        f.put(Fields.MEMORY_TEMP, Tolerance.moving(3));
        f.put(Fields.POWER_DRAW, Tolerance.moving(15, 0.10));
        f.put(Fields.SM_CLOCK, Tolerance.moving(60, 0.10));
        f.put(Fields.MEM_CLOCK, Tolerance.moving(60, 0.05));
        f.put(Fields.GPU_UTIL, Tolerance.moving(10));
        f.put(Fields.MEMORY_UTIL, Tolerance.moving(10));
        f.put(Fields.ENCODER_UTIL, Tolerance.moving(10));
        f.put(Fields.DECODER_UTIL, Tolerance.moving(10));
        f.put(Fields.REPLAY_COUNTER, Tolerance.moving(0));
        f.put(Fields.REMAPPED_CORRECTABLE, Tolerance.moving(0));
        f.put(Fields.REMAPPED_UNCORRECTABLE, Tolerance.moving(0));
        f.put(Fields.REMAPPED_PENDING, Tolerance.EXACT);
        f.put(Fields.REMAPPED_FAILURE, Tolerance.EXACT);
        return Map.copyOf(f);
    }

    /** The fields in report order. */
    public static List<String> gpuFieldOrder() {
        return List.of(Fields.UUID, Fields.PRODUCT_NAME, Fields.PCI_BUS_ID, Fields.MINOR_NUMBER, Fields.COMPUTE_CAP,
                Fields.MIG_CURRENT, Fields.MIG_PENDING, Fields.ECC_CURRENT, Fields.FB_TOTAL, Fields.FB_RESERVED,
                Fields.FB_USED, Fields.FB_FREE, Fields.GPU_TEMP, Fields.MEMORY_TEMP, Fields.POWER_DRAW, Fields.SM_CLOCK,
                Fields.MEM_CLOCK, Fields.GPU_UTIL, Fields.MEMORY_UTIL, Fields.ENCODER_UTIL, Fields.DECODER_UTIL,
                Fields.REPLAY_COUNTER, Fields.REMAPPED_CORRECTABLE, Fields.REMAPPED_UNCORRECTABLE,
                Fields.REMAPPED_PENDING, Fields.REMAPPED_FAILURE);
    }

    /**
     * Compares {@code nvml} with nvidia-smi's readings.
     *
     * @param before nvidia-smi just before nvml-ffm read the node
     * @param after  nvidia-smi just after
     */
    public static List<Finding> compare(NodeValues nvml, NodeValues before, NodeValues after) {
        List<Finding> findings = new ArrayList<>();
        Compare node = new Compare(STEP, "node", SOURCE);
        findings.add(node.exact(Fields.DRIVER_VERSION, nvml.system(Fields.DRIVER_VERSION), before.system(Fields.DRIVER_VERSION)));
        findings.add(node.exact(Fields.CUDA_VERSION, nvml.system(Fields.CUDA_VERSION), before.system(Fields.CUDA_VERSION)));
        findings.add(node.exact(Fields.ATTACHED_GPUS, nvml.system(Fields.ATTACHED_GPUS), Val.num(before.gpus().size())));
        for (GpuValues gpu : nvml.gpus()) {
            Compare compare = new Compare(STEP, gpu.describe(), SOURCE);
            Optional<GpuValues> smiBefore = match(before, gpu);
            Optional<GpuValues> smiAfter = match(after, gpu);
            if (smiBefore.isEmpty()) {
                findings.add(compare.decided("gpu", gpu.busId(), "(none)", "matched by PCI bus id, else UUID",
                        Agreement.MISMATCH, "nvidia-smi lists no GPU at " + gpu.busId() + " or with UUID " + gpu.uuid()));
                continue;
            }
            for (String field : gpuFieldOrder()) {
                Tolerance tolerance = GPU_FIELDS.get(field);
                Val mine = gpu.get(field);
                List<Val> references = tolerance.moving() && smiAfter.isPresent()
                        ? List.of(smiBefore.get().get(field), smiAfter.get().get(field))
                        : List.of(smiBefore.get().get(field));
                findings.add(switch (field) {
                    case Fields.PCI_BUS_ID -> compare.ignoringCase(field, normalise(mine), normalise(smiBefore.get().get(field)));
                    default -> compare.within(field, mine, references, tolerance);
                });
            }
        }
        for (GpuValues listed : before.gpus()) {
            if (nvml.byBusId(listed.busId()).isEmpty() && nvml.byUuid(listed.uuid()).isEmpty()) {
                findings.add(new Compare(STEP, "nvidia-smi GPU " + listed.busId(), SOURCE).decided("gpu", "(none)",
                        listed.uuid(), "matched by PCI bus id, else UUID", Agreement.MISMATCH,
                        "nvml-ffm does not list this GPU"));
            }
        }
        return findings;
    }

    private static Val normalise(Val busId) {
        return busId instanceof Val.Text(String id) ? Val.text(Fields.normaliseBusId(id)) : busId;
    }

    private static Optional<GpuValues> match(NodeValues smi, GpuValues gpu) {
        return smi.byBusId(gpu.busId()).or(() -> smi.byUuid(gpu.uuid()));
    }
}
