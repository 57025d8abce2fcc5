package dev.kgpu.plugin.dra;

import dev.kgpu.cdi.CdiException;
import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.cdi.CdiSpecWriter;
import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.plugin.devices.CdiGpus;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
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
 * <p>Stateless apart from the file system; thread-safe.
 */
public final class ClaimSpecs {

    private final CdiSpecWriter writer;
    private final NvidiaCdiGenerator.Options options;

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
        Objects.requireNonNull(uid, "uid");
        List<NvidiaCdiGenerator.Gpu> gpus = CdiGpus.of(node.inventory(),
                devices.stream().map(DraDevice::device).toList());
        CdiSpec generated = NvidiaCdiGenerator.generate(options, node.inventory().driver().version(), gpus);
        Map<String, String> names = new HashMap<>();
        devices.forEach(d -> names.put(d.uuid(), DraNames.cdiDevice(uid, d.name())));
        List<CdiSpec.Device> renamed = generated.devices().stream()
                .map(d -> new CdiSpec.Device(names.get(d.name()), d.annotations(), d.containerEdits()))
                .toList();
        CdiSpec spec = new CdiSpec(generated.cdiVersion(), DraNames.CDI_KIND, generated.annotations(), renamed,
                generated.containerEdits()).withMinimumVersion();
        return writer.writeTransient(spec, uid);
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
