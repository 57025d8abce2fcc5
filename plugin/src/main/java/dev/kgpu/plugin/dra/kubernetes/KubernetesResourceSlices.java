package dev.kgpu.plugin.dra.kubernetes;

import dev.kgpu.agent.kubernetes.KubernetesError;
import dev.kgpu.plugin.dra.AttributeValue;
import dev.kgpu.plugin.dra.DraDevice;
import dev.kgpu.plugin.dra.ResourcePool;
import dev.kgpu.plugin.dra.ResourceSliceStore;
import dev.kgpu.plugin.dra.SliceStoreException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePoolBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The node's ResourceSlices ({@code resource.k8s.io/v1}) through fabric8, kept the way the kubelet helper's
 * ResourceSlice controller (k8s.io/dynamic-resource-allocation {@code resourceslice}), which NVIDIA's driver uses,
 * keeps them:
 * <ul>
 *   <li>the driver's slices on this node are found with the field selectors {@code spec.nodeName} and
 *       {@code spec.driver}, so slices another writer left for the driver here (NVIDIA's driver before a switch) are
 *       seen and replaced too;</li>
 *   <li>slice {@code i} of the pool is named {@code <i in hex>-gpu.nvidia.com-<node>-<random>} (generateName) and owned
 *       by the Node (so deleting the Node deletes them); an existing slice is matched by that index;</li>
 *   <li>when anything differs the pool's generation becomes the highest found plus one, every slice is written with
 *       it and the slice count, surplus and foreign slices are deleted first, missing ones created; when nothing differs
 *       nothing is written;</li>
 *   <li>a conflict (409: someone wrote a slice meanwhile) reads the slices again and retries, up to
 *       {@value #CONFLICT_RETRIES} times; any other failure is a {@link SliceStoreException} in one line.</li>
 * </ul>
 * Needs {@code get} on {@code nodes} and {@code list}, {@code watch}, {@code create}, {@code update}, {@code delete} on
 * {@code resourceslices} (without {@code watch} the publisher falls back to its periodic resync). Called from one thread
 * at a time.
 */
public final class KubernetesResourceSlices implements ResourceSliceStore {

    static final int CONFLICT_RETRIES = 3;
    private static final System.Logger LOG = System.getLogger(KubernetesResourceSlices.class.getName());

    private final KubernetesClient client;
    private String nodeUid;

    public KubernetesResourceSlices(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    private NonNamespaceOperation<ResourceSlice, ResourceSliceList, Resource<ResourceSlice>> slices() {
        return client.dynamicResourceAllocation().v1().resourcesSlices();
    }

    @Override
    public Published sync(ResourcePool pool) throws SliceStoreException {
        for (int attempt = 1; ; attempt++) {
            try {
                return syncOnce(pool);
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409 && attempt < CONFLICT_RETRIES) {
                    LOG.log(System.Logger.Level.DEBUG, "ResourceSlices of pool {0} changed meanwhile; reading them again", pool.name());
                    continue;
                }
                throw new SliceStoreException("ResourceSlices of node " + pool.nodeName() + ": " + KubernetesError.of(e).describe(), e);
            }
        }
    }

    /**
     * An informer on the slices of {@code driver} on {@code nodeName} (field selectors {@code spec.nodeName},
     * {@code spec.driver}, checked again here since a watch may not filter), no resync of its own: every add, update and
     * delete calls {@code changed}. An informer that cannot start (403 without {@code watch}) is no watch, with why.
     */
    @Override
    public Watch watch(String driver, String nodeName, Runnable changed) {
        java.util.function.Predicate<ResourceSlice> ours = s -> s != null && s.getSpec() != null
                && driver.equals(s.getSpec().getDriver()) && nodeName.equals(s.getSpec().getNodeName());
        io.fabric8.kubernetes.client.informers.SharedIndexInformer<ResourceSlice> informer;
        try {
            informer = slices().withField("spec.nodeName", nodeName).withField("spec.driver", driver)
                    .inform(new io.fabric8.kubernetes.client.informers.ResourceEventHandler<>() {
                        @Override
                        public void onAdd(ResourceSlice slice) {
                            if (ours.test(slice)) {
                                changed.run();
                            }
                        }

                        @Override
                        public void onUpdate(ResourceSlice before, ResourceSlice after) {
                            if (ours.test(before) || ours.test(after)) {
                                changed.run();
                            }
                        }

                        @Override
                        public void onDelete(ResourceSlice slice, boolean finalStateUnknown) {
                            if (finalStateUnknown || ours.test(slice)) {
                                changed.run();
                            }
                        }
                    }, 0);
        } catch (KubernetesClientException e) {
            return Watch.none("cannot watch the ResourceSlices of node " + nodeName + ": " + KubernetesError.of(e).describe());
        } catch (RuntimeException e) {
            return Watch.none("cannot watch the ResourceSlices of node " + nodeName + ": " + e);
        }
        return new Watch() {
            @Override
            public java.util.Optional<String> problem() {
                return informer.isRunning() ? java.util.Optional.empty()
                        : java.util.Optional.of("the watch of the ResourceSlices of node " + nodeName + " stopped");
            }

            @Override
            public void close() {
                informer.close();
            }
        };
    }

    private Published syncOnce(ResourcePool pool) throws SliceStoreException {
        OwnerReference owner = owner(pool.nodeName());
        List<ResourceSlice> existing = new ArrayList<>(slices()
                .withField("spec.nodeName", pool.nodeName())
                .withField("spec.driver", pool.driver())
                .list().getItems());
        // the API server filters by these fields; this keeps any other answer from being taken for ours
        existing.removeIf(s -> s.getSpec() == null || !pool.driver().equals(s.getSpec().getDriver())
                || !pool.nodeName().equals(s.getSpec().getNodeName()));
        existing.sort(Comparator.comparing(s -> s.getMetadata().getName()));

        List<List<Device>> desired = pool.slices().stream().map(KubernetesResourceSlices::devices).toList();
        long highest = existing.stream().mapToLong(KubernetesResourceSlices::generation).max().orElse(0);
        int width = Integer.toHexString(Math.max(0, desired.size() - 1)).length();

        Map<Integer, ResourceSlice> matched = new LinkedHashMap<>();
        List<ResourceSlice> obsolete = new ArrayList<>();
        for (ResourceSlice slice : existing) {
            int index = index(slice.getMetadata().getName(), width, pool.driver());
            boolean ours = pool.name().equals(slice.getSpec().getPool() == null ? null : slice.getSpec().getPool().getName());
            if (ours && index >= 0 && index < desired.size() && !matched.containsKey(index)) {
                matched.put(index, slice);
            } else {
                obsolete.add(slice);
            }
        }
        boolean unchanged = obsolete.isEmpty() && matched.size() == desired.size();
        for (Map.Entry<Integer, ResourceSlice> entry : matched.entrySet()) {
            ResourceSliceSpec spec = entry.getValue().getSpec();
            unchanged &= generation(entry.getValue()) == highest
                    && spec.getPool().getResourceSliceCount() != null && spec.getPool().getResourceSliceCount() == desired.size()
                    && Objects.equals(orEmpty(spec.getDevices()), desired.get(entry.getKey()));
        }
        if (unchanged) {
            return new Published(highest, desired.size(), false);
        }

        long generation = highest + 1;
        for (ResourceSlice slice : obsolete) {
            slices().withName(slice.getMetadata().getName()).delete();
        }
        for (int i = 0; i < desired.size(); i++) {
            ResourceSliceSpec spec = new io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpecBuilder()
                    .withDriver(pool.driver())
                    .withNodeName(pool.nodeName())
                    .withPool(new ResourcePoolBuilder().withName(pool.name()).withGeneration(generation)
                            .withResourceSliceCount((long) desired.size()).build())
                    .withDevices(desired.get(i))
                    .build();
            ResourceSlice current = matched.get(i);
            if (current != null) {
                current.setSpec(spec);
                slices().resource(current).update();
            } else {
                slices().resource(new ResourceSliceBuilder()
                        .withNewMetadata()
                        .withGenerateName(namePrefix(i, width, pool))
                        .withOwnerReferences(owner)
                        .endMetadata()
                        .withSpec(spec)
                        .build()).create();
            }
        }
        return new Published(generation, desired.size(), true);
    }

    /** {@code <index in hex, width digits>-<driver>-<node>-}, the helper's generateName for slice {@code index}. */
    static String namePrefix(int index, int width, ResourcePool pool) {
        String hex = Integer.toHexString(index);
        return "0".repeat(Math.max(0, width - hex.length())) + hex + "-" + pool.driver() + "-" + pool.nodeName() + "-";
    }

    /** The slice's index from its name's prefix, or -1 when it has none of {@code width} hex digits. */
    static int index(String name, int width, String driver) {
        int dash = name.indexOf('-');
        if (dash != width || !name.startsWith("-" + driver + "-", dash)) {
            return -1;
        }
        try {
            return Integer.parseInt(name.substring(0, dash), 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static long generation(ResourceSlice slice) {
        return slice.getSpec().getPool() == null || slice.getSpec().getPool().getGeneration() == null
                ? 0 : slice.getSpec().getPool().getGeneration();
    }

    private static List<Device> orEmpty(List<Device> devices) {
        return devices == null ? List.of() : devices;
    }

    /** The Node's owner reference (its UID read once). */
    private OwnerReference owner(String nodeName) throws SliceStoreException {
        if (nodeUid == null) {
            Node node = client.nodes().withName(nodeName).get();
            if (node == null) {
                throw new SliceStoreException("Node " + nodeName + " was not found: NODE_NAME must name this node", null);
            }
            nodeUid = node.getMetadata().getUid();
        }
        return new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node").withName(nodeName).withUid(nodeUid)
                .withController(true).build();
    }

    /** The devices of one slice as the API writes them. */
    static List<Device> devices(List<DraDevice> devices) {
        return devices.stream().map(KubernetesResourceSlices::device).toList();
    }

    static Device device(DraDevice device) {
        Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
        device.attributes().forEach((name, value) -> attributes.put(name, attribute(value)));
        Map<String, DeviceCapacity> capacity = new LinkedHashMap<>();
        device.capacity().forEach((name, amount) -> capacity.put(name,
                new DeviceCapacityBuilder().withValue(new Quantity(Quantities.binarySi(amount))).build()));
        return new DeviceBuilder().withName(device.name()).withAttributes(attributes).withCapacity(capacity).build();
    }

    private static DeviceAttribute attribute(AttributeValue value) {
        DeviceAttributeBuilder builder = new DeviceAttributeBuilder();
        return switch (value) {
            case AttributeValue.Text text -> builder.withString(text.value()).build();
            case AttributeValue.Int number -> builder.withInt(number.value()).build();
            case AttributeValue.Bool bool -> builder.withBool(bool.value()).build();
            case AttributeValue.Version version -> builder.withVersion(version.value()).build();
        };
    }
}
