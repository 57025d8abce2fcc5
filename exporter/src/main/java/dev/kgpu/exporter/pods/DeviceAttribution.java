package dev.kgpu.exporter.pods;

import dev.kgpu.exporter.config.GpuIdType;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricFamily;
import dev.kgpu.exporter.metrics.MetricRow;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which container holds which device, keyed as dcgm-exporter keys series: a GPU by its UUID
 * ({@code uid}) or {@code nvidia<index>} ({@code device-name}), a GPU instance by
 * {@code <gpu index>-<GPU-instance id>} whatever the id type.
 *
 * <p>Device ids are read as the device plugins write them: a GPU UUID; {@code MIG-<uuid>} (found through
 * NVML, a {@code ::N} suffix ignored); GKE's {@code nvidia<N>/gi<M>[/vgpu<K>]}; a time-sliced replica
 * {@code <id>::<N>} or {@code <id>/vgpu<N>}, which maps to its physical device with replica {@code N}.
 * Only resources named {@code nvidia.com/gpu}, {@code nvidia.com/mig-*} or listed in
 * {@code NVIDIA_RESOURCE_NAMES} count.
 *
 * <p>Without {@code KUBERNETES_VIRTUAL_GPUS} a device has one holder (the last listed wins) and its
 * series get {@code container}, {@code namespace}, {@code pod}; with it, a device's series are repeated
 * once per holder with {@code vgpu} added where the holder has a replica.
 *
 * <p>Immutable; safe for concurrent use.
 */
public final class DeviceAttribution {

    private static final Pattern GKE_MIG = Pattern.compile("^nvidia([0-9]+)/gi([0-9]+)(/vgpu([0-9]+))?$");
    private static final String GKE_VGPU = "/vgpu";
    private static final String REPLICA = "::";

    private static final DeviceAttribution NONE = new DeviceAttribution(Map.of(), GpuIdType.UID, false);

    private final Map<String, List<PodRef>> holders;
    private final GpuIdType idType;
    private final boolean virtualGpus;

    private DeviceAttribution(Map<String, List<PodRef>> holders, GpuIdType idType, boolean virtualGpus) {
        this.holders = holders;
        this.idType = idType;
        this.virtualGpus = virtualGpus;
    }

    /** No device is held by any pod (Kubernetes mode off, or nothing known yet). */
    public static DeviceAttribution none() {
        return NONE;
    }

    public static DeviceAttribution from(List<ContainerDevices> allocations, Set<String> extraResourceNames,
                                         GpuIdType idType, boolean virtualGpus, MigInstanceLookup migs) {
        Map<String, List<PodRef>> holders = new LinkedHashMap<>();
        for (ContainerDevices devices : allocations) {
            if (!isGpuResource(devices.resourceName(), extraResourceNames)) {
                continue;
            }
            for (String id : devices.deviceIds()) {
                Optional<String> replica = replicaOf(id);
                PodRef holder = new PodRef(devices.pod(), devices.namespace(), devices.container(),
                        virtualGpus ? replica : Optional.empty());
                for (String key : keysOf(id, migs)) {
                    List<PodRef> list = holders.computeIfAbsent(key, k -> new ArrayList<>());
                    if (virtualGpus) {
                        if (!list.contains(holder)) {
                            list.add(holder);
                        }
                    } else {
                        list.clear();
                        list.add(holder);
                    }
                }
            }
        }
        Map<String, List<PodRef>> frozen = new HashMap<>();
        holders.forEach((key, list) -> frozen.put(key, List.copyOf(list)));
        return new DeviceAttribution(Map.copyOf(frozen), idType, virtualGpus);
    }

    static boolean isGpuResource(String resourceName, Set<String> extraResourceNames) {
        return resourceName.equals("nvidia.com/gpu") || resourceName.startsWith("nvidia.com/mig-")
                || extraResourceNames.contains(resourceName);
    }

    private static Optional<String> replicaOf(String id) {
        Matcher gke = GKE_MIG.matcher(id);
        if (gke.matches()) {
            return Optional.ofNullable(gke.group(4));
        }
        int vgpu = id.indexOf(GKE_VGPU);
        if (vgpu >= 0) {
            return Optional.of(id.substring(vgpu + GKE_VGPU.length()));
        }
        int replica = id.indexOf(REPLICA);
        if (replica >= 0) {
            return Optional.of(id.substring(replica + REPLICA.length()));
        }
        return Optional.empty();
    }

    /** Every key under which this device id is known; the id itself is always one. */
    private static List<String> keysOf(String id, MigInstanceLookup migs) {
        List<String> keys = new ArrayList<>(2);
        if (id.startsWith("MIG-")) {
            int replica = id.indexOf(REPLICA);
            String migUuid = replica >= 0 ? id.substring(0, replica) : id;
            migs.find(migUuid).ifPresent(instance -> keys.add(instance.key()));
        } else {
            Matcher gke = GKE_MIG.matcher(id);
            if (gke.matches()) {
                keys.add(gke.group(1) + "-" + gke.group(2));
            } else if (id.contains(GKE_VGPU)) {
                keys.add(id.substring(0, id.indexOf(GKE_VGPU)));
            } else if (id.contains(REPLICA)) {
                keys.add(id.substring(0, id.indexOf(REPLICA)));
            }
        }
        keys.add(id);
        return keys;
    }

    /** The key dcgm-exporter looks an entity's series up by. */
    public String keyOf(Entity entity) {
        if (entity.gpuInstance().isPresent()) {
            return entity.gpuIndex() + "-" + entity.gpuInstance().get().id();
        }
        return idType == GpuIdType.UID ? entity.gpuUuid() : entity.device();
    }

    /** The containers holding this entity's device. */
    public List<PodRef> holdersOf(Entity entity) {
        return holders.getOrDefault(keyOf(entity), List.of());
    }

    public boolean isEmpty() {
        return holders.isEmpty();
    }

    /** The families with pod attributes added (and, with virtual GPUs, rows repeated per holder). */
    public List<MetricFamily> apply(List<MetricFamily> families) {
        if (holders.isEmpty()) {
            return families;
        }
        List<MetricFamily> attributed = new ArrayList<>(families.size());
        for (MetricFamily family : families) {
            List<MetricRow> rows = new ArrayList<>(family.rows().size());
            for (MetricRow row : family.rows()) {
                List<PodRef> pods = holdersOf(row.entity());
                if (pods.isEmpty()) {
                    rows.add(row);
                    continue;
                }
                List<PodRef> applied = virtualGpus ? pods : List.of(pods.getLast());
                for (PodRef pod : applied) {
                    Map<String, String> attributes = new HashMap<>();
                    attributes.put("container", pod.container());
                    attributes.put("namespace", pod.namespace());
                    attributes.put("pod", pod.pod());
                    pod.vgpu().ifPresent(v -> attributes.put("vgpu", v));
                    rows.add(row.withAttributes(attributes));
                }
            }
            attributed.add(new MetricFamily(family.counter(), rows));
        }
        return attributed;
    }
}
