package dev.kgpu.plugin.dra;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.kgpu.plugin.node.AllocationLedger.KubeletAllocations;
import dev.kgpu.plugin.node.AllocationLedger.Source;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The kubelet's device-manager checkpoint, {@code /var/lib/kubelet/device-plugins/kubelet_internal_checkpoint}: what the
 * device manager allocated to each container, as the kubelet writes it after every allocation and device-list change
 * ({@code pkg/kubelet/cm/devicemanager/checkpoint}). Read-only; the DRA driver falls back to it when the PodResources API
 * cannot be reached.
 *
 * <p>The format: {@code {"Data":{"PodDeviceEntries":[{"PodUID", "ContainerName", "ResourceName", "DeviceIDs",
 * "AllocResp"}...], "RegisteredDevices":{...}}, "Checksum": n}}, where {@code DeviceIDs} maps a NUMA node to device
 * IDs (kubelet 1.20 and later) or is a plain list of IDs (earlier kubelets); both are read. A Go {@code nil} slice or
 * map is written as {@code null} and read as empty. {@code AllocResp}, {@code RegisteredDevices} and a newer kubelet's
 * {@code BootID} are not read.
 *
 * <p>The {@code Checksum} is not verified. The kubelet computes it as FNV-32a over a Go-specific dump of its structs
 * ({@code spew}'s {@code %#v} with Go type names, sorted map keys and hex dumps of byte slices), which cannot be
 * reproduced reliably outside Go and changes with the kubelet's type names; a file whose fields parse is used as it
 * is. A torn file is not a risk this guards against: the kubelet writes the checkpoint to a temporary file and renames
 * it.
 *
 * <p>Entries of pods that ended stay until the kubelet writes the file again (at its next allocation or device-list
 * change): whoever reads it over-reserves, the safe direction.
 *
 * <p>Thread-safety: immutable; {@link #read} may be called from any thread.
 */
public final class KubeletDeviceCheckpoint {

    /** The file's name in the kubelet's device-plugins folder. */
    public static final String FILE_NAME = "kubelet_internal_checkpoint";

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private final Path file;

    public KubeletDeviceCheckpoint(Path file) {
        this.file = Objects.requireNonNull(file, "file");
    }

    public Path file() {
        return file;
    }

    /**
     * What the checkpoint says the device manager allocated, as of when the kubelet wrote it: its modification time, or
     * {@code now} when that is later (a clock step). The time is read before the contents, so the contents are at least
     * as new as it (the kubelet replaces the file by renaming a new one over it).
     *
     * @throws IOException when the file is missing, unreadable, or malformed: one line naming the file and, for a
     *                     malformed one, the field and its value
     */
    public KubeletAllocations read(Instant now) throws IOException {
        byte[] bytes;
        Instant listedAt;
        try {
            Instant written = Files.getLastModifiedTime(file).toInstant();
            listedAt = written.isBefore(now) ? written : now;
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IOException("the kubelet's device-manager checkpoint " + file + " is not there");
        } catch (IOException e) {
            throw new IOException("cannot read the kubelet's device-manager checkpoint " + file + ": " + e.getMessage());
        }
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw malformed("the file", shorten(new String(bytes, java.nio.charset.StandardCharsets.UTF_8)),
                    "must be JSON (" + e.getOriginalMessage() + ")");
        }
        if (root == null || !root.isObject()) {
            throw malformed("the file", root == null ? "" : shorten(root.toString()), "must be a JSON object");
        }
        JsonNode data = root.get("Data");
        if (data == null || !data.isObject()) {
            throw malformed("Data", value(data), "must be an object");
        }
        JsonNode entries = data.get("PodDeviceEntries");
        List<KubeletAllocations.Allocation> allocations = new ArrayList<>();
        if (entries != null && !entries.isNull()) {
            if (!entries.isArray()) {
                throw malformed("Data.PodDeviceEntries", value(entries), "must be a list");
            }
            for (int i = 0; i < entries.size(); i++) {
                allocations.add(entry(entries.get(i), "Data.PodDeviceEntries[" + i + "]"));
            }
        }
        return new KubeletAllocations(listedAt, Source.KUBELET_CHECKPOINT, allocations);
    }

    private KubeletAllocations.Allocation entry(JsonNode entry, String field) throws IOException {
        if (!entry.isObject()) {
            throw malformed(field, value(entry), "must be an object");
        }
        String podUid = text(entry, field, "PodUID");
        String container = text(entry, field, "ContainerName");
        String resource = text(entry, field, "ResourceName");
        return new KubeletAllocations.Allocation(resource, deviceIds(entry.get("DeviceIDs"), field + ".DeviceIDs"),
                new KubeletAllocations.Pod("", "", podUid), container);
    }

    /** {@code {"<numa node>": [ids]}} (kubelet 1.20 and later) or {@code [ids]} (before); each ID once. */
    private List<String> deviceIds(JsonNode ids, String field) throws IOException {
        Set<String> found = new LinkedHashSet<>();
        if (ids == null || ids.isNull()) {
            return List.of();
        }
        if (ids.isArray()) {
            addIds(ids, field, found);
        } else if (ids.isObject()) {
            for (Map.Entry<String, JsonNode> numa : ids.properties()) {
                try {
                    Long.parseLong(numa.getKey());
                } catch (NumberFormatException e) {
                    throw malformed(field, numa.getKey(), "must map NUMA node numbers to device IDs");
                }
                if (!numa.getValue().isNull()) {
                    if (!numa.getValue().isArray()) {
                        throw malformed(field + "." + numa.getKey(), value(numa.getValue()), "must be a list of device IDs");
                    }
                    addIds(numa.getValue(), field + "." + numa.getKey(), found);
                }
            }
        } else {
            throw malformed(field, value(ids), "must map NUMA nodes to device IDs, or list device IDs");
        }
        return List.copyOf(found);
    }

    private void addIds(JsonNode list, String field, Set<String> into) throws IOException {
        for (int i = 0; i < list.size(); i++) {
            JsonNode id = list.get(i);
            if (!id.isTextual() || id.asText().isEmpty()) {
                throw malformed(field + "[" + i + "]", value(id), "must be a device ID");
            }
            into.add(id.asText());
        }
    }

    private String text(JsonNode entry, String field, String name) throws IOException {
        JsonNode node = entry.get(name);
        if (node == null || !node.isTextual() || node.asText().isEmpty()) {
            throw malformed(field + "." + name, value(node), "must be a non-empty string");
        }
        return node.asText();
    }

    private IOException malformed(String field, String value, String reason) {
        return new IOException("the kubelet's device-manager checkpoint " + file + " is malformed: " + field + " was '"
                + value + "' but it " + reason);
    }

    private static String value(JsonNode node) {
        if (node == null) {
            return "";
        }
        return shorten(node.isTextual() ? node.asText() : node.toString());
    }

    /** One line, at most 80 characters. */
    private static String shorten(String text) {
        String line = text.replaceAll("\\s+", " ").strip();
        return line.length() <= 80 ? line : line.substring(0, 77) + "...";
    }
}
