package dev.kgpu.sim.kubelet;

import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Mount;
import dev.kgpu.sim.podresources.FakePodResourcesServer;
import dev.kgpu.sim.runtime.DeviceInjection;
import dev.kgpu.sim.runtime.DeviceManager;
import dev.kgpu.sim.scheduler.ExtendedResources;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulated node's kubelet, from the test doubles of the modules whose protocols they fake: the device
 * manager ({@link KubeletSimulator}, plugin's test-jar) on {@code device-plugins/kubelet.sock}, publishing the
 * node's capacity and allocatable to its Node ({@link NodeStatusPublisher}), and the PodResources v1 API
 * ({@link FakePodResourcesServer}, exporter's test-jar) on {@code pod-resources/kubelet.sock}, kept in step
 * with the device manager's admissions and releases. The Node's status is written on every change of the
 * device manager's devices, on its event thread, so the last write holds its latest state.
 *
 * <p>It is the {@link DeviceManager} of the node's {@code SchedulerAndKubelet} (validator's test-jar), which
 * plays the kubelet's pod workers: a pod bound to the node is admitted through the real device plugin
 * (GetPreferredAllocation, Allocate), one that does not fit is rejected as the kubelet rejects it
 * ({@code OutOf<resource>}), and each container gets what Allocate answered. Pods are known to the device
 * manager as {@code <namespace>/<name>}.
 */
public final class SimulatedKubelet implements DeviceManager, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SimulatedKubelet.class.getName());

    private final KubeletSimulator devices;
    private final FakePodResourcesServer podResources;

    private SimulatedKubelet(KubeletSimulator devices, FakePodResourcesServer podResources) {
        this.devices = devices;
        this.podResources = podResources;
    }

    /**
     * Serves both sockets and publishes the node's first status.
     *
     * @param baseCapacity the node's cpu, memory and pods, published beside the extended resources
     */
    public static SimulatedKubelet start(Path devicePluginsDir, Path podResourcesSocket, KubernetesClient client,
                                         String nodeName, Map<String, Quantity> baseCapacity) {
        KubeletSimulator devices = KubeletSimulator.start(devicePluginsDir);
        FakePodResourcesServer podResources;
        try {
            podResources = FakePodResourcesServer.start(podResourcesSocket);
        } catch (RuntimeException e) {
            devices.close();
            throw e;
        }
        NodeStatusPublisher nodeStatus = new NodeStatusPublisher(devices, client, nodeName, baseCapacity);
        devices.addListener(nodeStatus);
        devices.addListener(new PodResourcesSync(podResources));
        nodeStatus.publish();
        return new SimulatedKubelet(devices, podResources);
    }

    /** The device manager: registrations, device lists, admissions. */
    public KubeletSimulator devices() {
        return devices;
    }

    public Path podResourcesSocket() {
        return podResources.socket();
    }

    /** The device manager's name of a pod. */
    public static String podKey(String namespace, String name) {
        return namespace + "/" + name;
    }

    @Override
    public Admission admit(Pod pod) {
        return switch (devices.admit(podSpec(pod))) {
            case PodAdmission.Pending pending -> {
                String resource = pending.reason().replaceFirst("^Insufficient ", "");
                yield new Admission.Rejected("OutOf" + resource,
                        "Pod was rejected: Node didn't have enough resource: " + resource);
            }
            case PodAdmission.Failed failed -> new Admission.Rejected(failed.reason(), failed.message());
            case PodAdmission.Admitted admitted -> {
                LOG.log(System.Logger.Level.INFO, "pod {0} admitted with devices {1}", admitted.podName(),
                        admitted.allocation().containers().stream().map(PodAllocation.ContainerAllocation::deviceIds).toList());
                Map<String, DeviceInjection> containers = new LinkedHashMap<>();
                admitted.allocation().containers().forEach(c -> containers.put(c.name(), injection(c.response())));
                yield new Admission.Admitted(containers);
            }
        };
    }

    @Override
    public void release(Pod pod) {
        devices.release(podKey(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
    }

    /** The device manager's view of a pod: its containers' extended resources. */
    static PodSpec podSpec(Pod pod) {
        List<PodSpec.Container> containers = ExtendedResources.byContainer(pod).entrySet().stream()
                .map(c -> new PodSpec.Container(c.getKey(), c.getValue())).toList();
        return new PodSpec(podKey(pod.getMetadata().getNamespace(), pod.getMetadata().getName()), containers);
    }

    /** What the NVIDIA container toolkit reads from an Allocate response. */
    static DeviceInjection injection(ContainerAllocateResponse response) {
        return new DeviceInjection(response.getEnvsMap(),
                response.getMountsList().stream().map(Mount::getContainerPath).toList(),
                response.getAnnotationsMap(),
                response.getCdiDevicesList().stream().map(d -> d.getName()).toList());
    }

    @Override
    public void close() {
        try {
            devices.close();
        } finally {
            podResources.close();
        }
    }

    /** What the device manager admits, the PodResources API lists; what it releases, it forgets. */
    static final class PodResourcesSync implements KubeletListener {
        private final FakePodResourcesServer podResources;

        PodResourcesSync(FakePodResourcesServer podResources) {
            this.podResources = podResources;
        }

        @Override
        public void onAdmission(PodAdmission admission) {
            if (admission instanceof PodAdmission.Admitted admitted) {
                String[] key = admitted.podName().split("/", 2);
                for (PodAllocation.ContainerAllocation container : admitted.allocation().containers()) {
                    container.deviceIds().forEach((resource, ids) ->
                            podResources.assign(key[1], key[0], container.name(), resource, ids));
                }
            }
        }

        @Override
        public void onReleased(PodAllocation allocation) {
            String[] key = allocation.podName().split("/", 2);
            podResources.remove(key[1], key[0]);
        }
    }
}
