package dev.kgpu.sim.kubelet;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The kubelet's device-manager checkpoint, {@code <device-plugins>/kubelet_internal_checkpoint}, as a kubelet of 1.20
 * or later writes it ({@code pkg/kubelet/cm/devicemanager/checkpoint}): each container's devices per resource, by NUMA
 * node ({@code -1} for a device without topology), its Allocate response (protobuf bytes, base64 as Go writes a
 * {@code []byte}), and each resource's healthy devices. An empty list is written as {@code null}, as Go writes a nil
 * slice. The kubelet writes it after each allocation and each device-list change, not when a pod ends: a pod that ended
 * stays in it until the next write.
 *
 * <p>Differences: the {@code Checksum} is written as 0 (the kubelet's is an FNV-32a over a Go-specific dump of its
 * structs; no reader here checks it), no {@code BootID} is written, and a pod's UID is derived from its name (the
 * simulated kubelet has no API server pods): {@link #podUid}.
 */
public final class DeviceManagerCheckpoint {

    /** The file's name in the device-plugins directory. */
    public static final String FILE_NAME = "kubelet_internal_checkpoint";
    /** The kubelet's NUMA node for a device without topology. */
    static final long NO_TOPOLOGY = -1;

    private static final ObjectMapper JSON = new ObjectMapper();

    private DeviceManagerCheckpoint() {
    }

    /** The UID the simulated kubelet gives the pod named {@code podName}: a name-based UUID. */
    public static String podUid(String podName) {
        return UUID.nameUUIDFromBytes(("pod/" + podName).getBytes(StandardCharsets.UTF_8)).toString();
    }

    /**
     * Replaces {@code file} with the checkpoint of {@code pods} and {@code devices} (every device of each resource, the
     * healthy ones registered), as the kubelet does: a new file renamed over the old.
     */
    static void write(Path file, List<PodAllocation> pods, Map<String, List<DeviceState>> devices) {
        ObjectNode data = JSON.createObjectNode();
        ArrayNode entries = JSON.createArrayNode();
        for (PodAllocation pod : pods) {
            for (PodAllocation.ContainerAllocation container : pod.containers()) {
                for (Map.Entry<String, List<String>> resource : new TreeMap<>(container.deviceIds()).entrySet()) {
                    ObjectNode entry = entries.addObject();
                    entry.put("PodUID", podUid(pod.podName()));
                    entry.put("ContainerName", container.name());
                    entry.put("ResourceName", resource.getKey());
                    entry.set("DeviceIDs", byNuma(resource.getValue(), devices.getOrDefault(resource.getKey(), List.of())));
                    entry.put("AllocResp", Base64.getEncoder().encodeToString(container.response().toByteArray()));
                }
            }
        }
        data.set("PodDeviceEntries", entries.isEmpty() ? JSON.nullNode() : entries);
        ObjectNode registered = data.putObject("RegisteredDevices");
        devices.forEach((resource, states) -> {
            List<String> healthy = states.stream().filter(DeviceState::healthy).map(DeviceState::id).toList();
            if (healthy.isEmpty()) {
                registered.putNull(resource);
            } else {
                healthy.forEach(registered.putArray(resource)::add);
            }
        });
        ObjectNode root = JSON.createObjectNode();
        root.set("Data", data);
        root.put("Checksum", 0);
        try {
            Path next = Files.createTempFile(file.getParent(), ".kubelet_internal_checkpoint", ".tmp");
            Files.write(next, JSON.writeValueAsBytes(root));
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("failed to write checkpoint file " + file, e);
        }
    }

    /** The kubelet's DevicesPerNUMA: each ID under each of its NUMA nodes, or under -1 without topology. */
    private static ObjectNode byNuma(List<String> ids, List<DeviceState> known) {
        Map<Long, List<String>> byNode = new TreeMap<>();
        for (String id : ids) {
            List<Long> nodes = known.stream().filter(d -> d.id().equals(id)).findFirst().map(DeviceState::numaNodes)
                    .filter(n -> !n.isEmpty()).orElse(List.of(NO_TOPOLOGY));
            nodes.forEach(node -> byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(id));
        }
        ObjectNode numa = JSON.createObjectNode();
        byNode.forEach((node, onNode) -> onNode.forEach(numa.putArray(Long.toString(node))::add));
        return numa;
    }
}
