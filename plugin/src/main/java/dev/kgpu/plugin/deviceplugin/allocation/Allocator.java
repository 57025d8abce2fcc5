package dev.kgpu.plugin.deviceplugin.allocation;

import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.devices.Replication;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Answers Allocate for one container, as NVIDIA's plugin does (v0.20 {@code internal/plugin/server.go}):
 * validates the IDs, turns replica IDs into their devices (UUIDs or indices per {@code deviceIDStrategy}),
 * then adds, in order: CDI device names (annotations and/or {@code cdi_devices}), MPS pipe and shared-memory
 * mounts, GDRCopy/GDS/MOFED variables; unless only CDI strategies are set, {@code NVIDIA_VISIBLE_DEVICES}
 * (envvar) or the {@code /dev/null} mounts under {@code /var/run/nvidia-container-devices} (volume-mounts);
 * and device specs when {@code passDeviceSpecs}.
 *
 * <p>Stateless apart from its settings; thread-safe.
 */
public final class Allocator {

    public static final String VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
    public static final String VOLUME_MOUNTS_ROOT = "/var/run/nvidia-container-devices";
    public static final String CDI_KIND = NvidiaCdiGenerator.DEVICE_PLUGIN_KIND;
    public static final String CDI_PLUGIN_NAME = "nvidia-device-plugin";
    static final List<String> CONTROL_NODES = List.of("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
            "/dev/nvidia-modeset");

    private final AllocationSettings settings;
    private final DeviceNodes deviceNodes;
    private final Supplier<String> responseIds;

    /**
     * @param deviceNodes which optional device nodes ({@code /dev/nvidia-uvm}, ...) the host has ({@link DeviceNodes#onHost()}
     *                    in production)
     * @param responseIds unique IDs for CDI annotation keys ({@code UUID.randomUUID().toString()} in production)
     */
    public Allocator(AllocationSettings settings, DeviceNodes deviceNodes, Supplier<String> responseIds) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.deviceNodes = Objects.requireNonNull(deviceNodes, "deviceNodes");
        this.responseIds = Objects.requireNonNull(responseIds, "responseIds");
    }

    public AllocationSettings settings() {
        return settings;
    }

    public ContainerAllocation allocate(PluginResource resource, List<String> requestedIds) {
        List<AdvertisedDevice> requested = validate(resource, requestedIds);
        List<PhysicalDevice> physical = new ArrayList<>(new LinkedHashSet<>(requested.stream().map(AdvertisedDevice::device).toList()));
        List<String> ids = physical.stream().map(d -> settings.indexIds() ? d.indexId() : d.uuid()).toList();

        Map<String, String> envs = new LinkedHashMap<>();
        List<ContainerAllocation.Mount> mounts = new ArrayList<>();
        List<ContainerAllocation.DeviceNode> nodes = new ArrayList<>();
        Map<String, String> annotations = new LinkedHashMap<>();
        List<String> cdiDevices = new ArrayList<>();

        if (settings.cdiAnnotations() || settings.cdiCri()) {
            List<String> names = new ArrayList<>(ids.stream().map(id -> CDI_KIND + "=" + id).toList());
            if (settings.gdrcopy()) {
                names.add("k8s.device-plugin.nvidia.com/gdrcopy=all");
            }
            if (settings.gds()) {
                names.add("k8s.device-plugin.nvidia.com/gds=all");
            }
            if (settings.mofed()) {
                names.add("k8s.device-plugin.nvidia.com/mofed=all");
            }
            if (settings.cdiAnnotations()) {
                annotations.put(settings.cdiAnnotationPrefix() + CDI_PLUGIN_NAME + "_" + responseIds.get(), String.join(",", names));
            }
            if (settings.cdiCri()) {
                cdiDevices.addAll(names);
            }
        }
        if (resource.replication() instanceof Replication.Shared shared && shared.mps()) {
            String root = settings.mpsRoot().orElseThrow(() -> new IllegalStateException(
                    "mpsRoot was '' but it must be set when MPS shares " + resource.name()));
            String pipe = "/mps/" + resource.name() + "/pipe";
            envs.put("CUDA_MPS_PIPE_DIRECTORY", pipe);
            mounts.add(new ContainerAllocation.Mount(pipe, Path.of(root, resource.name(), "pipe").toString(), false));
            mounts.add(new ContainerAllocation.Mount("/dev/shm", Path.of(root, "shm").toString(), false));
        }
        if (settings.gdrcopy()) {
            envs.put("NVIDIA_GDRCOPY", "enabled");
        }
        if (settings.gds()) {
            envs.put("NVIDIA_GDS", "enabled");
        }
        if (settings.mofed()) {
            envs.put("NVIDIA_MOFED", "enabled");
        }
        if (!settings.onlyCdi()) {
            if (settings.envvar()) {
                envs.put(VISIBLE_DEVICES, String.join(",", ids));
            }
            if (settings.volumeMounts()) {
                envs.put(VISIBLE_DEVICES, VOLUME_MOUNTS_ROOT);
                for (String id : ids) {
                    mounts.add(new ContainerAllocation.Mount(VOLUME_MOUNTS_ROOT + "/" + id, "/dev/null", false));
                }
            }
            if (settings.passDeviceSpecs()) {
                nodes.addAll(deviceSpecs(physical));
            }
        }
        return new ContainerAllocation(envs, mounts, nodes, annotations, cdiDevices);
    }

    private List<AdvertisedDevice> validate(PluginResource resource, List<String> requestedIds) {
        if (requestedIds.isEmpty()) {
            throw new AllocationException.BadRequest("invalid allocation request for '" + resource.name()
                    + "': no device IDs");
        }
        List<AdvertisedDevice> requested = new ArrayList<>();
        for (String id : requestedIds) {
            requested.add(resource.device(id).orElseThrow(() -> new AllocationException.UnknownDevice(resource.name(), id)));
        }
        if (resource.replication() instanceof Replication.Shared shared && shared.failRequestsGreaterThanOne()
                && requested.stream().anyMatch(AdvertisedDevice::isReplica) && requested.size() > 1) {
            throw new AllocationException.TooManyReplicas(resource.name(), requested.size());
        }
        return requested;
    }

    private List<ContainerAllocation.DeviceNode> deviceSpecs(List<PhysicalDevice> devices) {
        Set<String> paths = new LinkedHashSet<>();
        for (String control : CONTROL_NODES) {
            if (deviceNodes.exists(settings.devRoot(), control)) {
                paths.add(control);
            }
        }
        devices.forEach(d -> paths.addAll(d.deviceNodes()));
        return paths.stream().map(p -> new ContainerAllocation.DeviceNode(p, hostPath(p), "rw")).toList();
    }

    private String hostPath(String containerPath) {
        return Path.of(settings.devRoot(), containerPath).normalize().toString();
    }
}
