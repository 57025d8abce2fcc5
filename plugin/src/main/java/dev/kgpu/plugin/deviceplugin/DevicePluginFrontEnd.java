package dev.kgpu.plugin.deviceplugin;

import dev.kgpu.plugin.deviceplugin.allocation.DeviceNodes;
import dev.kgpu.plugin.deviceplugin.resources.ConfiguredResourcePlanner;
import dev.kgpu.plugin.deviceplugin.resources.ResourcePlanException;
import dev.kgpu.plugin.deviceplugin.resources.ResourcePlanner;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.mps.MpsDaemonCheck;
import dev.kgpu.plugin.node.FrontEnd;
import dev.kgpu.plugin.node.NodeContext;
import dev.kgpu.plugin.node.NodeStatus;
import dev.kgpu.plugin.node.Retry;
import dev.kgpu.plugin.node.UnservableException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * kgpu as NVIDIA's device plugin: the kubelet's device-plugin API {@code v1beta1}, one resource per socket in the
 * device-plugins folder ({@code nvidia.com/gpu}, {@code nvidia.com/mig-1g.10gb}, ...), planned from the inventory by
 * the config's MIG strategy and sharing ({@link ConfiguredResourcePlanner}), with the CDI spec its names resolve
 * through ({@link CdiSpecPublisher}).
 *
 * <ul>
 *   <li>each plan the node serves replaces every server: the resources are served and registered, resource by
 *       resource; what failed is retried with the node's backoff;</li>
 *   <li>the device-plugins folder is watched from the start ({@link Kubelet#watch}): {@code kubelet.sock} created
 *       (the kubelet restarted and forgot every plugin) serves and registers every resource again; a resource's socket
 *       deleted while the kubelet runs serves that resource again; a starting kubelet deletes every socket before it
 *       creates {@code kubelet.sock}, so those deletions wait for it;</li>
 *   <li>each resource listens to the node's health itself, and pushes its new device list to the kubelet;</li>
 *   <li>a resource shared with MPS is served only while its MPS control daemon runs ({@link MpsGate}).</li>
 * </ul>
 *
 * <p>Thread-safety: the {@link FrontEnd} calls and the folder's changes run on the node's thread;
 * {@link #status()} may be called from any thread.
 */
public final class DevicePluginFrontEnd implements FrontEnd<DevicePluginSettings> {

    /** This front-end's name in logs and health checks. */
    public static final String NAME = "device plugin";
    private static final System.Logger LOG = System.getLogger(DevicePluginFrontEnd.class.getName());

    private final Kubelet kubelet;
    private final DevicePluginMetrics metrics;
    private final Function<ConfiguredResourcePlanner.Settings, ResourcePlanner> planners;
    private final DeviceNodes deviceNodes;
    private final CdiSpecPublisher cdi = new CdiSpecPublisher();
    private volatile DevicePluginStatus status = DevicePluginStatus.STARTING;

    // confined to the node's thread
    private NodeContext node;
    private Retry retry;
    /** The planner of the settings last planned with, built once per load of the settings. */
    private ConfiguredResourcePlanner.Settings plannerSettings;
    private ResourcePlanner planner;
    /** The plan served, or null while nothing is. */
    private ResourcePlan served;
    private ServedResources resources;
    /** Holds back each MPS-shared resource while its MPS control daemon does not run. */
    private MpsGate mps;
    /**
     * kubelet.sock is gone or not there yet: a kubelet that starts deletes every socket, then creates kubelet.sock,
     * which serves them all again, so a plugin socket deleted meanwhile is not served again alone.
     */
    private boolean kubeletStopped;

    /**
     * @param kubelet     serves and registers the resources, and watches the device-plugins folder
     * @param planners    builds the planner of each load of the settings ({@code ConfiguredResourcePlanner::new})
     * @param deviceNodes which optional device nodes the host has, for Allocate's device specs
     */
    public DevicePluginFrontEnd(Kubelet kubelet, DevicePluginMetrics metrics,
                                Function<ConfiguredResourcePlanner.Settings, ResourcePlanner> planners, DeviceNodes deviceNodes) {
        this.kubelet = Objects.requireNonNull(kubelet, "kubelet");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.planners = Objects.requireNonNull(planners, "planners");
        this.deviceNodes = Objects.requireNonNull(deviceNodes, "deviceNodes");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void start(NodeContext context) {
        this.node = Objects.requireNonNull(context, "context");
        this.retry = context.retry(this::serveAndRegister);
        this.resources = ServedResources.none(kubelet, metrics, context.health());
        this.mps = new MpsGate(context, settings -> new MpsDaemonCheck(settings, Optional.ofNullable(System.getenv("PATH"))),
                this::serveAndRegister);
        try {
            kubelet.watch(change -> context.run(() -> kubeletChanged(change)));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.ERROR, "cannot watch the device-plugins folder ({0}): kubelet restarts will"
                    + " not be noticed", e.getMessage());
        }
    }

    @Override
    public ResourcePlan plan(NodeInventory inventory, DevicePluginSettings settings) {
        if (settings.resources() != plannerSettings) {
            planner = planners.apply(settings.resources());
            plannerSettings = settings.resources();
        }
        try {
            return new ResourcePlan(inventory, settings, planner.plan(inventory));
        } catch (ResourcePlanException e) {
            throw new UnservableException(e.getMessage());
        }
    }

    @Override
    public void stopServing(NodeStatus.Problem why) {
        mps.stop();
        dropServers();
        served = null;
        cdi.stopped();
        if (why instanceof NodeStatus.Problem.Stopped) {
            kubelet.close();
        }
        publishStatus();
    }

    @Override
    public DevicePluginStatus status() {
        return status;
    }

    /** What the device plugin serves of one inventory: its resources, planned under its settings. */
    public final class ResourcePlan implements FrontEnd.Plan {

        private final NodeInventory inventory;
        private final DevicePluginSettings settings;
        private final List<PluginResource> resources;

        private ResourcePlan(NodeInventory inventory, DevicePluginSettings settings, List<PluginResource> resources) {
            this.inventory = inventory;
            this.settings = settings;
            this.resources = List.copyOf(resources);
        }

        /** The resources, each with at least one device, in a stable order. */
        public List<PluginResource> resources() {
            return resources;
        }

        @Override
        public Collection<? extends PhysicalDevice> devices() {
            return new ArrayList<>(new LinkedHashSet<>(resources.stream()
                    .flatMap(r -> r.devices().stream().map(AdvertisedDevice::device)).toList()));
        }

        @Override
        public void serve() {
            DevicePluginFrontEnd.this.serve(this);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // the node's thread

    private void serve(ResourcePlan plan) {
        dropServers();
        served = plan;
        retry.reset();
        resources = ServedResources.of(plan.resources, plan.inventory, plan.settings, deviceNodes, node, kubelet, metrics);
        mps.serving(plan.resources, plan.settings.mps(), resources);
        if (plan.resources.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "No devices found. Waiting indefinitely.");
        }
        boolean all = resources.serve();
        if (!(resources.register() && all)) {
            retry.schedule();
        }
        cdi.serving(plan.settings.cdi(), plan.inventory, plan.resources);
        publishStatus();
    }

    /** Serves and registers what is not yet; retries later what failed. */
    private void serveAndRegister() {
        if (served == null) {
            return;
        }
        boolean all = resources.serve();
        if (resources.register() && all) {
            retry.reset();
        } else {
            // kubelet.sock being created also serves everything again; the timer covers a kubelet that refused
            retry.schedule();
        }
        publishStatus();
    }

    private void kubeletChanged(Kubelet.Change change) {
        switch (change) {
            case Kubelet.Change.KubeletStarted started -> {
                kubeletStopped = false;
                if (served != null) {
                    LOG.log(System.Logger.Level.INFO, "starting the plugin''s servers ({0})",
                            "kubelet.sock was created (the kubelet restarted)");
                    serve(served);
                }
            }
            case Kubelet.Change.KubeletStopped stopped -> kubeletStopped = true;
            case Kubelet.Change.SocketDeleted deleted -> {
                if (!kubeletStopped && resources.socketDeleted(deleted.name())) {
                    serveAndRegister();
                }
            }
        }
        publishStatus();
    }

    /** Stops every server and forgets its resource. */
    private void dropServers() {
        if (resources != null) {
            resources.stop();
        }
        resources = ServedResources.none(kubelet, metrics, node.health());
    }

    private void publishStatus() {
        List<String> problems = new ArrayList<>();
        if (served != null && resources.names().isEmpty()) {
            problems.add("no devices found");
        }
        problems.addAll(resources.problems());
        status = new DevicePluginStatus(resources.names(), resources.serving(), resources.registered(), kubelet.registers(),
                problems);
    }
}
