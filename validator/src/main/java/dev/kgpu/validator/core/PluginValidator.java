package dev.kgpu.validator.core;

import dev.kgpu.config.v1.MigStrategy;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * {@code plugin}: the node {@code NODE_NAME} advertises {@code nvidia.com/gpu*} or {@code nvidia.com/mig-*}
 * capacity and allocatable above zero (polled {@code waitTries} times, NVIDIA's 30 x 5 s); with
 * {@code WITH_WORKLOAD=true} a pod requesting one of them runs the CUDA sample.
 *
 * <p>Through DRA instead ({@code KGPU_PLUGIN_DEVICE_CLASS} names a DeviceClass): the plugin's DRA driver
 * {@value #DRA_DRIVER} publishes at least one device for the node in its ResourceSlices (polled the same way), and
 * the sample pod asks for one device of that DeviceClass through a ResourceClaim.
 */
public final class PluginValidator implements ComponentValidator {

    public static final String GENERATE_NAME = "nvidia-device-plugin-validator-";
    public static final String APP_LABEL = "nvidia-device-plugin-validator";
    public static final String CONTAINER = "plugin-validation";
    /** The DRA driver whose ResourceSlices the plugin component waits for: kgpu's, as NVIDIA's. */
    public static final String DRA_DRIVER = "gpu.nvidia.com";

    private final Cluster cluster;
    private final String nodeName;
    private final String namespace;
    private final InstantSource clock;
    private final Sleeper sleeper;
    private final Duration interval;
    private final int waitTries;
    private final Optional<SamplePodRunner> workload;
    private final SamplePod samplePod;
    private final MigStrategy migStrategy;
    private final Optional<String> deviceClass;

    /**
     * @param deviceClass empty: validate the device plugin's extended resources; else validate the DRA driver, the
     *                    sample pod claiming one device of this DeviceClass
     */
    public PluginValidator(Cluster cluster, String nodeName, String namespace, InstantSource clock, Sleeper sleeper,
                           Duration interval, int waitTries, Optional<SamplePodRunner> workload, SamplePod samplePod,
                           MigStrategy migStrategy, Optional<String> deviceClass) {
        this.cluster = cluster;
        this.nodeName = nodeName;
        this.namespace = namespace;
        this.clock = clock;
        this.sleeper = sleeper;
        this.interval = interval;
        this.waitTries = waitTries;
        this.workload = workload;
        this.samplePod = samplePod;
        this.migStrategy = migStrategy;
        this.deviceClass = deviceClass;
    }

    @Override
    public Component component() {
        return Component.PLUGIN;
    }

    @Override
    public Evidence validate() throws InterruptedException {
        if (deviceClass.isPresent()) {
            return validateClaim(deviceClass.get());
        }
        NodeResources node = awaitGpuResources();
        String resource = node.sampleResource(migStrategy).orElseThrow();
        String summary = "node " + nodeName + " advertises " + node.gpuCapacity() + ", allocatable "
                + node.gpuAllocatable();
        if (workload.isPresent()) {
            summary += "; " + workload.get().run(samplePod.request(namespace, GENERATE_NAME, APP_LABEL, nodeName,
                    CONTAINER, new GpuRequest.ExtendedResource(resource)));
        }
        return Evidence.of(summary);
    }

    private Evidence validateClaim(String deviceClass) throws InterruptedException {
        List<String> devices = awaitSliceDevices();
        String summary = "node " + nodeName + " publishes " + devices.size() + " " + DRA_DRIVER + " device"
                + (devices.size() == 1 ? "" : "s") + " in its ResourceSlices " + devices;
        if (workload.isPresent()) {
            summary += "; " + workload.get().run(samplePod.request(namespace, GENERATE_NAME, APP_LABEL, nodeName,
                    CONTAINER, new GpuRequest.DeviceClaim(deviceClass)));
        }
        return Evidence.of(summary);
    }

    private List<String> awaitSliceDevices() throws InterruptedException {
        Instant started = clock.instant();
        Instant deadline = started.plus(interval.multipliedBy(waitTries));
        ClusterException lastError = null;
        while (true) {
            try {
                List<String> devices = cluster.sliceDevices(nodeName, DRA_DRIVER);
                lastError = null;
                if (!devices.isEmpty()) {
                    return devices;
                }
            } catch (ClusterException e) {
                if (!e.isTransient()) {
                    throw SamplePodRunner.apiFailure("list the ResourceSlices of node " + nodeName, e);
                }
                lastError = e;
            }
            if (!clock.instant().isBefore(deadline)) {
                long waited = Duration.between(started, clock.instant()).toSeconds();
                if (lastError != null) {
                    throw SamplePodRunner.apiFailure("list the ResourceSlices of node " + nodeName + " (for " + waited
                            + " s)", lastError);
                }
                throw new ComponentFailure(Layer.DEVICE_PLUGIN, "node " + nodeName + " has no device of DRA driver "
                        + DRA_DRIVER + " in any ResourceSlice after " + waited + " s; is the plugin's DRA driver running"
                        + " (KGPU_KUBELET_APIS=dra) and registered with the kubelet, and are its GPUs healthy?");
            }
            sleeper.sleep(interval);
        }
    }

    private NodeResources awaitGpuResources() throws InterruptedException {
        Instant started = clock.instant();
        Instant deadline = started.plus(interval.multipliedBy(waitTries));
        Optional<NodeResources> last = Optional.empty();
        ClusterException lastError = null;
        while (true) {
            try {
                last = cluster.node(nodeName);
                lastError = null;
                if (last.isPresent() && !last.get().gpuCapacity().isEmpty()
                        && last.get().sampleResource(migStrategy).isPresent()) {
                    return last.get();
                }
            } catch (ClusterException e) {
                if (!e.isTransient()) {
                    throw SamplePodRunner.apiFailure("read node " + nodeName, e);
                }
                lastError = e;
            }
            if (!clock.instant().isBefore(deadline)) {
                long waited = Duration.between(started, clock.instant()).toSeconds();
                if (lastError != null) {
                    throw SamplePodRunner.apiFailure("read node " + nodeName + " (for " + waited + " s)", lastError);
                }
                if (last.isEmpty()) {
                    throw new ComponentFailure(Layer.API, "node " + nodeName + " does not exist (waited "
                            + waited + " s); is NODE_NAME set from spec.nodeName?");
                }
                if (last.get().gpuCapacity().isEmpty()) {
                    throw new ComponentFailure(Layer.DEVICE_PLUGIN, "node " + nodeName + " reports no "
                            + NodeResources.GPU + " or " + NodeResources.MIG_PREFIX + "* capacity after " + waited
                            + " s; is the device plugin running and registered with the kubelet?");
                }
                throw new ComponentFailure(Layer.DEVICE_PLUGIN, "node " + nodeName + " has capacity "
                        + last.get().gpuCapacity() + " but nothing allocatable after " + waited
                        + " s; the device plugin reports every GPU unhealthy");
            }
            sleeper.sleep(interval);
        }
    }
}
