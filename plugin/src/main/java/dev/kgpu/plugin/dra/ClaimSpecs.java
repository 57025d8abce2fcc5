package dev.kgpu.plugin.dra;

import dev.kgpu.cdi.CdiException;
import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.cdi.CdiSpecWriter;
import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.plugin.devices.CdiGpus;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The CDI spec of each prepared claim, as NVIDIA's DRA driver writes it: one transient spec per claim,
 * {@code <cdi root>/k8s.gpu.nvidia.com-claim_<claim UID>.json} (NVIDIA: {@code .yaml}; the runtime reads both), kind
 * {@value DraNames#CDI_KIND}, one device {@code <claim UID>-<device name>} per allocated device with that GPU's or MIG
 * device's edits, and the driver's common edits (libraries, control nodes, hooks) at spec level. The edits come from
 * nvml-ffm's {@link NvidiaCdiGenerator}, the same generator the device plugin's spec uses.
 *
 * <p>Keeps the generated edits of recent device sets ({@link #generated}); thread-safe.
 */
public final class ClaimSpecs {

    private final CdiSpecWriter writer;
    private final NvidiaCdiGenerator.Options options;
    private static final int GENERATED_KEPT = 64;
    /** The generated specs by the UUIDs of their devices, least recently used first; guarded by itself. */
    private final Map<List<String>, CdiSpec> generated = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<List<String>, CdiSpec> eldest) {
            return size() > GENERATED_KEPT;
        }
    };
    /** The devices {@link #generated} holds specs of; guarded by {@link #generated}. */
    private NodeDevices generatedFor;

    /** @param options roots and hook path (the device plugin's); kind and names are set here */
    public ClaimSpecs(Path cdiRoot, NvidiaCdiGenerator.Options options) {
        this.writer = new CdiSpecWriter(cdiRoot);
        this.options = options.withKind(DraNames.CDI_KIND).withNames(List.of(NvidiaCdiGenerator.NameStrategy.UUID), false);
    }

    /**
     * Writes the spec of claim {@code uid} for {@code devices} of {@code node}, atomically.
     *
     * @throws CdiException when the driver's files cannot be found or the spec cannot be written
     */
    public Path write(String uid, NodeDevices node, List<DraDevice> devices) {
        return write(uid, node, devices, CdiSpec.ContainerEdits.EMPTY);
    }

    /**
     * {@link #write(String, NodeDevices, List)} with {@code claimEdits} added to the spec's common edits, e.g. an MPS
     * claim's pipe folder ({@link MpsSharing}).
     */
    public Path write(String uid, NodeDevices node, List<DraDevice> devices, CdiSpec.ContainerEdits claimEdits) {
        Objects.requireNonNull(uid, "uid");
        CdiSpec generated = generated(node, devices);
        Map<String, String> names = new HashMap<>();
        devices.forEach(d -> names.put(d.uuid(), DraNames.cdiDevice(uid, d.name())));
        List<CdiSpec.Device> renamed = generated.devices().stream()
                .map(d -> new CdiSpec.Device(names.get(d.name()), d.annotations(), d.containerEdits()))
                .toList();
        CdiSpec spec = new CdiSpec(generated.cdiVersion(), DraNames.CDI_KIND, generated.annotations(), renamed,
                generated.containerEdits().append(claimEdits)).withMinimumVersion();
        return writer.writeTransient(spec, uid);
    }

    /**
     * The generator's spec for {@code devices}, made once per device set while {@code node} is the node's devices: the
     * generator looks through the driver root (libraries, device nodes, binaries) each time, and claims ask for the same
     * sets again and again. A failure is not kept. At most {@value #GENERATED_KEPT} sets are kept.
     */
    private CdiSpec generated(NodeDevices node, List<DraDevice> devices) {
        List<String> key = devices.stream().map(DraDevice::uuid).toList();
        synchronized (generated) {
            if (generatedFor != node) {
                generated.clear();
                generatedFor = node;
            }
            CdiSpec kept = generated.get(key);
            if (kept != null) {
                return kept;
            }
        }
        CdiSpec spec = NvidiaCdiGenerator.generate(options, node.inventory().driver().version(),
                CdiGpus.of(node.inventory(), devices.stream().map(DraDevice::device).toList()));
        synchronized (generated) {
            if (generatedFor == node) {
                generated.put(key, spec);
            }
        }
        return spec;
    }

    /** Whether claim {@code uid}'s spec is there. */
    public boolean exists(String uid) {
        return Files.exists(writer.transientFileFor(DraNames.CDI_KIND, uid));
    }

    /**
     * Removes claim {@code uid}'s spec, ours or one NVIDIA's driver left ({@code .yaml}); false when there was none.
     *
     * @throws CdiException when it cannot be removed
     */
    public boolean remove(String uid) {
        return writer.removeTransient(DraNames.CDI_KIND, uid);
    }

    /** The folder specs are written to ({@code CDI_ROOT}). */
    public Path directory() {
        return writer.directory();
    }
}
