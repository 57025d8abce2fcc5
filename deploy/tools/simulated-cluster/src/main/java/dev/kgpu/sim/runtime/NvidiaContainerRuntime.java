package dev.kgpu.sim.runtime;

import dev.kgpu.cdi.CdiException;
import dev.kgpu.cdi.CdiNames;
import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.sim.runtime.SimulatedGpus.Visible;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The simulated node's container runtime with the NVIDIA container toolkit, over the node's
 * {@link SimulatedGpus}, reduced to what decides a GPU container's fate: which devices it is given, and whether
 * CUDA finds one it can run on. The node's {@code SchedulerAndKubelet} (validator's test-jar) drives it.
 *
 * <ul>
 *   <li>Devices are read as the toolkit reads them: {@code NVIDIA_VISIBLE_DEVICES} from the device plugin's
 *       Allocate response (else the container's own env): a list of UUIDs or indexes, {@code all},
 *       {@code none}/{@code void}; with the volume-mounts strategy, the names of the mounts under
 *       {@code /var/run/nvidia-container-devices}; with CDI, the names in the response's CDI devices or
 *       {@code cdi.k8s.io/*} annotations, resolved as containerd resolves them through the node's spec
 *       directories ({@link CdiInjection}): an unresolvable name fails the container's start with containerd's
 *       {@code CDI device injection failed: unresolvable CDI devices ...}; the GPUs are those the names of
 *       {@code k8s.device-plugin.nvidia.com/gpu} and {@code nvidia.com/gpu} name, and the container's log lists
 *       the device nodes, mounts and hooks the specs gave it. A DRA claim's names
 *       ({@code k8s.gpu.nvidia.com/claim=<claim uid>-<device>}) give the GPUs whose {@code /dev/nvidia<minor>} their
 *       edits inject.</li>
 *   <li>A device id the node does not have fails the container at start, as {@code nvidia-container-cli} does.</li>
 *   <li>A CUDA vectorAdd sample (an image whose name or tag contains {@code vectoradd}, or the configured
 *       sample image) prints vectorAdd's real output and {@code Test PASSED} when it sees a device CUDA can
 *       run on (a GPU with MIG off, or a MIG device), else fails as CUDA does:
 *       {@code no CUDA-capable device is detected} ({@link VectorAdd}).</li>
 *   <li>Any other container keeps running; its log lists the GPUs it sees, as {@code nvidia-smi -L} would; the
 *       {@link GpuOccupancy} counts it in each of its GPUs until its pod stops.</li>
 * </ul>
 *
 * <p>Immutable; safe for concurrent use.
 */
public final class NvidiaContainerRuntime implements ContainerRuntime {

    /** The toolkit's folder of device-name mounts (device-list strategy {@code volume-mounts}). */
    static final String DEVICE_MOUNT_FOLDER = "/var/run/nvidia-container-devices";
    static final String VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
    /** The CDI kinds whose device names are NVIDIA GPUs: the device plugin's and nvidia-ctk's. */
    static final List<String> GPU_CDI_KINDS = List.of(NvidiaCdiGenerator.DEVICE_PLUGIN_KIND, "nvidia.com/gpu");
    /** The CDI kind of a DRA driver's per-claim specs (NVIDIA's {@code gpu.nvidia.com}, and kgpu's). */
    static final String CLAIM_CDI_KIND = "k8s.gpu.nvidia.com/claim";
    private static final java.util.regex.Pattern GPU_NODE = java.util.regex.Pattern.compile("/dev/nvidia(\\d+)");

    private final SimulatedGpus gpus;
    private final Optional<String> sampleImage;
    private final CdiInjection cdi;
    private final GpuOccupancy occupancy;

    /**
     * @param sampleImage the image the validator runs as its CUDA sample when it is not a recognisable
     *                    vectorAdd name ({@code KGPU_CUDA_SAMPLE_IMAGE})
     * @param cdi         the node's CDI spec directories, through which CDI names are resolved
     */
    public NvidiaContainerRuntime(SimulatedGpus gpus, Optional<String> sampleImage, CdiInjection cdi) {
        this(gpus, sampleImage, cdi, new GpuOccupancy());
    }

    /** @param occupancy counts the running containers each GPU is in */
    public NvidiaContainerRuntime(SimulatedGpus gpus, Optional<String> sampleImage, CdiInjection cdi, GpuOccupancy occupancy) {
        this.gpus = gpus;
        this.sampleImage = sampleImage.filter(s -> !s.isBlank());
        this.cdi = cdi;
        this.occupancy = occupancy;
    }

    @Override
    public void stopPod(String namespace, String pod) {
        occupancy.podStopped(namespace, pod);
    }

    @Override
    public ContainerOutcome start(ContainerStart container) {
        CdiInjection.Injected injected;
        try {
            injected = cdi.inject(CdiInjection.requested(container.devices().cdiDevices(), container.devices().annotations()));
        } catch (CdiException e) {
            return new ContainerOutcome.Exited(128, "StartError", e.getMessage(), "");
        }
        List<String> ids = new ArrayList<>(requestedDevices(container));
        claimedGpus(injected).stream().filter(id -> !ids.contains(id)).forEach(ids::add);
        List<Visible> visible = new ArrayList<>();
        for (String id : ids) {
            Optional<Visible> device = gpus.find(id);
            if (device.isEmpty()) {
                String message = "failed to create containerd task: failed to create shim task: OCI runtime create failed:"
                        + " nvidia-container-cli: device error: " + id + ": unknown device";
                return new ContainerOutcome.Exited(128, "StartError", message, "");
            }
            visible.add(device.get());
        }
        if (isVectorAdd(container.image())) {
            return visible.stream().anyMatch(Visible::cudaCapable)
                    ? new ContainerOutcome.Exited(0, "Completed", "", VectorAdd.PASSED)
                    : new ContainerOutcome.Exited(1, "Error", "", VectorAdd.failed(VectorAdd.NO_CUDA_DEVICE));
        }
        StringBuilder log = new StringBuilder("kgpu simulated runtime: container ").append(container.name())
                .append(" (").append(container.image()).append(") is running; ");
        if (visible.isEmpty()) {
            log.append("it sees no GPU\n");
        } else {
            log.append("nvidia-smi -L in it would print:\n");
            visible.forEach(v -> log.append(v.smiLine()).append('\n'));
        }
        if (!injected.names().isEmpty()) {
            log.append("CDI devices ").append(String.join(", ", injected.names())).append(" gave it:\n");
            injected.edits().deviceNodes().forEach(n -> log.append("  device node ").append(n.path()).append(" (host ")
                    .append(n.effectiveHostPath()).append(")\n"));
            injected.edits().mounts().forEach(m -> log.append("  mount ").append(m.containerPath()).append('\n'));
            injected.edits().hooks().forEach(h -> log.append("  hook ").append(String.join(" ", h.args())).append('\n'));
            injected.edits().env().forEach(e -> log.append("  env ").append(e).append('\n'));
        }
        occupancy.started(container.namespace() + "/" + container.pod() + "/" + container.name(),
                visible.stream().map(Visible::uuid).distinct().toList());
        return new ContainerOutcome.Running(log.toString());
    }

    /**
     * The GPUs (UUIDs) a DRA driver's per-claim CDI devices ({@value #CLAIM_CDI_KIND}) gave the container: their
     * names say only claim and device, so the GPU is found as the container would find it, by the device node
     * {@code /dev/nvidia<minor>} the spec's edits inject. (A MIG device's edits inject its parent's node too: the
     * parent is what this finds, so MIG devices through DRA are not modelled here.)
     */
    List<String> claimedGpus(CdiInjection.Injected injected) {
        if (injected.names().stream().noneMatch(n -> n.startsWith(CLAIM_CDI_KIND + "="))) {
            return List.of();
        }
        List<String> uuids = new ArrayList<>();
        for (var node : injected.edits().deviceNodes()) {
            java.util.regex.Matcher m = GPU_NODE.matcher(node.path());
            if (m.matches()) {
                int minor = Integer.parseInt(m.group(1));
                gpus.gpus().stream().filter(g -> g.minorNumber() == minor).map(SimulatedGpus.Gpu::uuid)
                        .filter(u -> !uuids.contains(u)).forEach(uuids::add);
            }
        }
        return uuids;
    }

    /** The device ids the toolkit would inject, in order, without duplicates. */
    List<String> requestedDevices(ContainerStart container) {
        Set<String> ids = new LinkedHashSet<>();
        DeviceInjection injection = container.devices();
        String visible = injection.envs().getOrDefault(VISIBLE_DEVICES, container.env().get(VISIBLE_DEVICES));
        if (visible != null) {
            if (visible.strip().equals(DEVICE_MOUNT_FOLDER)) {
                for (String path : injection.mountContainerPaths()) {
                    if (path.startsWith(DEVICE_MOUNT_FOLDER + "/")) {
                        ids.add(path.substring(DEVICE_MOUNT_FOLDER.length() + 1));
                    }
                }
            } else {
                ids.addAll(deviceList(visible));
            }
        }
        for (String name : CdiInjection.requested(injection.cdiDevices(), injection.annotations())) {
            if (CdiNames.isQualified(name)) {
                CdiNames.Qualified qualified = CdiNames.parse(name);
                if (GPU_CDI_KINDS.contains(qualified.kind())) {
                    ids.addAll(deviceList(qualified.name()));
                }
            }
        }
        return List.copyOf(ids);
    }

    private List<String> deviceList(String value) {
        String trimmed = value.strip();
        if (trimmed.isEmpty() || trimmed.equals("none") || trimmed.equals("void")) {
            return List.of();
        }
        if (trimmed.equals("all")) {
            return gpus.gpus().stream().flatMap(g -> g.migEnabled() && !g.migDevices().isEmpty()
                    ? g.migDevices().stream().map(SimulatedGpus.Mig::uuid)
                    : Stream.of(g.uuid())).toList();
        }
        return Arrays.stream(trimmed.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    /** Whether {@code image} is a CUDA vectorAdd sample. */
    boolean isVectorAdd(String image) {
        if (image == null) {
            return false;
        }
        return image.toLowerCase(Locale.ROOT).contains("vectoradd") || sampleImage.map(image::equals).orElse(false);
    }
}
