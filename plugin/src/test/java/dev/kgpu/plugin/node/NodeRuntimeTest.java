package dev.kgpu.plugin.node;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.Config;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.plugin.deviceplugin.CdiSettings;
import dev.kgpu.plugin.deviceplugin.DevicePluginFrontEnd;
import dev.kgpu.plugin.deviceplugin.DevicePluginMetrics;
import dev.kgpu.plugin.deviceplugin.DevicePluginSettings;
import dev.kgpu.plugin.deviceplugin.Kubelet;
import dev.kgpu.plugin.deviceplugin.ResourceService;
import dev.kgpu.plugin.deviceplugin.allocation.AllocationSettings;
import dev.kgpu.plugin.deviceplugin.allocation.SharedAllocationPolicy;
import dev.kgpu.plugin.deviceplugin.grpc.GrpcKubelet;
import dev.kgpu.plugin.deviceplugin.resources.ConfiguredResourcePlanner;
import dev.kgpu.plugin.deviceplugin.resources.ResourcePlanException;
import dev.kgpu.plugin.deviceplugin.resources.ResourcePlanner;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.devices.Replication;
import dev.kgpu.plugin.health.HealthChecks;
import dev.kgpu.plugin.health.HealthPolicy;
import dev.kgpu.plugin.health.HealthTracker;
import dev.kgpu.plugin.node.NodeStatus.Problem;
import dev.kgpu.plugin.settings.PluginSettings;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.plugin.testing.Devices;
import dev.kgpu.plugin.testing.ExitReasons;
import dev.kgpu.plugin.testing.FakeDeviceSource;
import dev.kgpu.plugin.testing.TestClock;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodSpec;
import dev.kgpu.sim.kubelet.ResourceState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node runtime with the device-plugin front-end against the kubelet simulator and an in-memory device source:
 * everything here runs without NVML. The same scenarios run on the mock NVML in the ITs of {@code dev.kgpu.plugin.it}.
 */
class NodeRuntimeTest {

    static final Duration WAIT = Duration.ofSeconds(15);
    static final String GPU = "nvidia.com/gpu";

    @TempDir
    Path dir;
    final TestClock clock = new TestClock();
    final List<Gpu> gpus = IntStream.range(0, 2).mapToObj(Devices::gpu).toList();
    final FakeDeviceSource devices = new FakeDeviceSource(NodeInventory.withoutTopology(gpus));
    final List<String> fatal = new CopyOnWriteArrayList<>();
    final List<String> served = new CopyOnWriteArrayList<>();
    final AtomicReference<Supplier<PluginSettings>> nextReload = new AtomicReference<>();
    /** The planner each load of the settings stands for: settings hold values, the front-end builds planners. */
    final Map<ConfiguredResourcePlanner.Settings, ResourcePlanner> planners = Collections.synchronizedMap(new IdentityHashMap<>());
    KubeletSimulator kubelet;
    NodeRuntime<PluginSettings> node;
    Supervisor<PluginSettings, Runnable> supervisor;
    DevicePluginFrontEnd devicePlugin;

    /** All GPUs as nvidia.com/gpu, or {@code replicas} time-slicing replicas of each. */
    static ResourcePlanner planner(int replicas) {
        return inventory -> {
            if (inventory.gpus().isEmpty()) {
                return List.of();
            }
            if (replicas < 2) {
                return List.of(new PluginResource(GPU, inventory.gpus().stream().map(AdvertisedDevice::whole).toList(),
                        Replication.NONE));
            }
            return List.of(new PluginResource(GPU, inventory.gpus().stream()
                    .flatMap(g -> IntStream.range(0, replicas).mapToObj(i -> AdvertisedDevice.replica(g, i))).toList(),
                    new Replication.Shared(false, replicas, false)));
        };
    }

    PluginSettings settings(ResourcePlanner planner, boolean failOnInitError) {
        ConfiguredResourcePlanner.Settings resources = new ConfiguredResourcePlanner.Settings(Config.defaults(),
                ConfiguredResourcePlanner.SharingDevices.IGNORED);
        planners.put(resources, planner);
        NodeSettings nodeSettings = new NodeSettings(failOnInitError,
                new HealthPolicy(HealthChecks.DEFAULT, HealthPolicy.DEFAULT_QUIET_PERIOD, Set.of()), Duration.ofHours(1),
                NvmlOptions.defaults(), Path.of("/"));
        DevicePluginSettings devicePlugin = new DevicePluginSettings(Optional.of(dir.resolve("kubelet.sock")), dir,
                resources, AllocationSettings.defaults(), SharedAllocationPolicy.DISTRIBUTED, CdiSettings.off(), Optional.empty());
        return new PluginSettings(nodeSettings, Optional.of(devicePlugin), Optional.empty(), "{}", List.of(), true);
    }

    /** The device plugin, telling which resources each start served, and each stop. */
    final class Recorder implements FrontEnd<DevicePluginSettings> {
        final DevicePluginFrontEnd devicePlugin;

        Recorder(DevicePluginFrontEnd devicePlugin) {
            this.devicePlugin = devicePlugin;
        }

        @Override
        public String name() {
            return devicePlugin.name();
        }

        @Override
        public void start(NodeContext context) {
            devicePlugin.start(context);
        }

        @Override
        public Plan plan(NodeInventory inventory, DevicePluginSettings settings) {
            DevicePluginFrontEnd.ResourcePlan plan = devicePlugin.plan(inventory, settings);
            return new Plan() {
                @Override
                public Collection<? extends PhysicalDevice> devices() {
                    return plan.devices();
                }

                @Override
                public void serve() {
                    plan.serve();
                    served.add(plan.resources().stream().map(r -> r.name() + "=" + r.devices().size()).toList().toString());
                }
            };
        }

        @Override
        public void stopServing(Problem why) {
            devicePlugin.stopServing(why);
            served.add("stopped");
        }

        @Override
        public FrontEndStatus status() {
            return devicePlugin.status();
        }
    }

    Supervisor<PluginSettings, Runnable> start(PluginSettings settings) {
        return start(settings, kubelet -> kubelet);
    }

    Supervisor<PluginSettings, Runnable> start(PluginSettings settings, UnaryOperator<Kubelet> kubeletSeenByThePlugin) {
        DevicePluginSettings devicePlugin = settings.devicePlugin().orElseThrow();
        this.devicePlugin = new DevicePluginFrontEnd(kubeletSeenByThePlugin.apply(new GrpcKubelet(devicePlugin.socketDirectory(),
                devicePlugin.kubeletSocket(), DevicePluginMetrics.NONE)), DevicePluginMetrics.NONE, planners::get,
                (devRoot, path) -> false);
        node = new NodeRuntime<>(devices, AllocationLedger.none(), List.of(FrontEnd.bind(new Recorder(this.devicePlugin),
                (PluginSettings s) -> s.devicePlugin().orElseThrow())), clock, NodeMetrics.NONE,
                new Backoff.Policy(Duration.ofMillis(50), Duration.ofSeconds(1)));
        supervisor = Supervisor.builder(NodeRuntime.THREAD_NAME, ExitReasons.recording(node, fatal))
                .reloads(NodeRuntime.RUNNING, () -> nextReload.get().get())
                .start(settings);
        return supervisor;
    }

    boolean hasProblem(Class<? extends Problem> kind, String text) {
        return node.status().problems().stream().anyMatch(p -> kind.isInstance(p) && p.message().contains(text));
    }

    @AfterEach
    void stop() {
        if (supervisor != null) {
            supervisor.stop(WAIT);
        }
        if (kubelet != null) {
            kubelet.close();
        }
    }

    ResourceState awaitGpus(java.util.function.Predicate<ResourceState> condition) {
        return kubelet.awaitResource(GPU, condition, WAIT);
    }

    @Test
    void registersEveryGpuAndBecomesReady() {
        kubelet = KubeletSimulator.start(dir);
        start(settings(planner(1), true));

        ResourceState state = awaitGpus(r -> r.allocatable() == 2);
        assertThat(state.endpoint()).isEqualTo("nvidia-gpu.sock");
        assertThat(state.preferredAllocationAvailable()).isTrue();
        assertThat(state.devices()).extracting(d -> d.numaNodes()).containsExactly(List.of(0L), List.of(0L));
        Await.until(() -> node.status().ready(), "readiness");
        assertThat(node.status().live()).isTrue();
        assertThat(kubelet.admit(PodSpec.of("p", GPU, 1))).isInstanceOf(PodAdmission.Admitted.class);
    }

    @Test
    void startsWithoutAKubeletAndRegistersWhenItAppears() throws Exception {
        start(settings(planner(1), true));
        Await.until(() -> devicePlugin.status().serving().contains(GPU), "serving without a kubelet");
        assertThat(node.status().ready()).isFalse();
        assertThat(node.status().live()).isTrue();

        kubelet = KubeletSimulator.start(dir);

        awaitGpus(r -> r.allocatable() == 2);
        Await.until(() -> node.status().ready(), "readiness after the kubelet came");
        // the starting kubelet deleted the plugin's socket before it created kubelet.sock, and no registration named
        // that deleted socket (the kubelet would have refused it after its dial's deadline). Usually one registration;
        // two when the plugin's retry timer registered with the new kubelet before kubelet.sock's event arrived, which
        // then serves and registers again, as NVIDIA's plugin does on every kubelet start
        assertThat(kubelet.registrations()).isNotEmpty().allSatisfy(e -> assertThat(e.accepted()).isTrue());
    }

    @Test
    void servesASocketThatIsGoneAgainBeforeRegisteringIt() {
        kubelet = KubeletSimulator.start(dir);
        AtomicBoolean kubeletStartsNow = new AtomicBoolean(true);
        // the kubelet's start deleting the plugin's socket just before the plugin registers it, before the deletion's
        // own event reaches the plugin: what a restarting kubelet does to a plugin whose retry timer fires then
        start(settings(planner(1), true), real -> new Kubelet() {
            @Override
            public Endpoint serve(ResourceService service) throws IOException {
                return real.serve(service);
            }

            @Override
            public boolean registers() {
                try {
                    if (kubeletStartsNow.get() && Files.deleteIfExists(dir.resolve("nvidia-gpu.sock"))) {
                        kubeletStartsNow.set(false);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return real.registers();
            }

            @Override
            public Registration register(Endpoint endpoint) {
                return real.register(endpoint);
            }

            @Override
            public void watch(Consumer<Change> changes) throws IOException {
                real.watch(changes);
            }

            @Override
            public void close() {
                real.close();
            }
        });

        awaitGpus(r -> r.allocatable() == 2);
        assertThat(kubeletStartsNow).isFalse();
        assertThat(kubelet.registrations()).isNotEmpty().allSatisfy(e -> assertThat(e.accepted()).isTrue());
    }

    @Test
    void anXidMarksTheGpuUnhealthyAndItRecoversAfterTheQuietPeriod() {
        kubelet = KubeletSimulator.start(dir);
        start(settings(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);
        Await.until(devices::watching, "the health watch");

        devices.xid(gpus.get(0).uuid(), 94);

        ResourceState down = awaitGpus(r -> r.allocatable() == 1);
        assertThat(down.unhealthyIds()).containsExactly(gpus.get(0).uuid());
        assertThat(down.capacity()).isEqualTo(2);

        assertThat(node.checkHealthNow().recovered()).as("still inside the quiet period").isEmpty();

        clock.advance(HealthPolicy.DEFAULT_QUIET_PERIOD);
        assertThat(node.checkHealthNow().recovered()).extracting(t -> t.uuid()).containsExactly(gpus.get(0).uuid());

        awaitGpus(r -> r.allocatable() == 2);
    }

    @Test
    void losingNvmlMarksEverythingUnhealthyUntilProbesAnswer() {
        kubelet = KubeletSimulator.start(dir);
        start(settings(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);
        Await.until(devices::watching, "the health watch");
        gpus.forEach(g -> devices.failProbe(g.uuid()));

        devices.loseNvml("nvmlEventSetWait_v2: Driver Not Loaded");

        awaitGpus(r -> r.allocatable() == 0 && r.capacity() == 2);
        HealthTracker.CheckResult stillLost = node.checkHealthNow();
        assertThat(stillLost.nvmlRestored()).isFalse();
        assertThat(stillLost.recovered()).isEmpty();

        devices.answerProbes();
        assertThat(node.checkHealthNow().nvmlRestored()).isTrue();

        awaitGpus(r -> r.allocatable() == 2);
        Await.until(devices::watching, "the health watch restarted");
        assertThat(devices.watches).hasValue(2);
    }

    @Test
    void aKubeletRestartLeadsToANewRegistration() {
        kubelet = KubeletSimulator.start(dir);
        start(settings(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);

        kubelet.restart();

        ResourceState state = awaitGpus(r -> r.registrations() == 2 && r.allocatable() == 2);
        assertThat(state.connected()).isTrue();
        assertThat(dir.resolve("nvidia-gpu.sock")).exists();
    }

    @Test
    void aDeletedPluginSocketIsServedAgain() throws Exception {
        kubelet = KubeletSimulator.start(dir);
        start(settings(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);

        Files.delete(dir.resolve("nvidia-gpu.sock"));

        awaitGpus(r -> r.registrations() == 2 && r.allocatable() == 2);
        assertThat(dir.resolve("nvidia-gpu.sock")).exists();
    }

    @Test
    void unreadableDevicesRegisterNothingAndAreRetried() {
        kubelet = KubeletSimulator.start(dir);
        devices.failOpen("NVML could not start: Driver Not Loaded");
        start(settings(planner(1), false));

        Await.until(() -> devices.opens.get() >= 2, "a retry");
        assertThat(kubelet.resources()).isEmpty();
        assertThat(node.status().ready()).isFalse();
        assertThat(node.status().problems())
                .containsExactly(new Problem.DevicesUnreadable("NVML could not start: Driver Not Loaded"));
        assertThat(fatal).isEmpty();

        // a later retry (the backoff stops at 1 s here) finds the devices
        devices.failOpen(null);

        awaitGpus(r -> r.allocatable() == 2);
        Await.until(() -> node.status().ready(), "readiness");
    }

    @Test
    void unreadableDevicesWithFailOnInitErrorAskToExit() {
        devices.failOpen("NVML could not start: Driver Not Loaded");
        start(settings(planner(1), true));

        Await.until(() -> !fatal.isEmpty(), "the fatal callback");
        assertThat(fatal).containsExactly("NVML could not start: Driver Not Loaded");
    }

    @Test
    void aPlanThatCannotBeMetAsksToExitWithItsMessage() {
        ResourcePlanner impossible = inventory -> {
            throw new ResourcePlanException("flags.migStrategy was 'single' but it needs identical MIG devices");
        };
        start(settings(impossible, false));

        Await.until(() -> !fatal.isEmpty(), "the fatal callback");
        assertThat(fatal).containsExactly("flags.migStrategy was 'single' but it needs identical MIG devices");
    }

    @Test
    void sighupRestartsWithTheNewConfigAndABadOneKeepsTheRunningConfig() {
        kubelet = KubeletSimulator.start(dir);
        start(settings(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);

        nextReload.set(() -> settings(planner(4), true));
        supervisor.reload();
        awaitGpus(r -> r.allocatable() == 8);
        Await.until(() -> served.equals(List.of("[nvidia.com/gpu=2]", "[nvidia.com/gpu=8]")), "the listener told of both");

        nextReload.set(() -> {
            throw new InvalidConfigException(new ValidationFailure("sharing.timeSlicing.resources[0].replicas", "1",
                    "must be at least 2"));
        });
        long registrations = kubelet.resource(GPU).orElseThrow().registrations();
        supervisor.reload();

        Await.until(() -> hasProblem(Problem.ReloadRejected.class, "replicas was '1'"), "rejection");
        assertThat(kubelet.resource(GPU).orElseThrow().registrations()).isEqualTo(registrations);
        assertThat(kubelet.resource(GPU).orElseThrow().allocatable()).isEqualTo(8);
        assertThat(node.status().ready()).isTrue();
        assertThat(served).as("nothing served anew").hasSize(2);
    }

    @Test
    void aReloadWhosePlanFailsKeepsTheRunningServers() {
        kubelet = KubeletSimulator.start(dir);
        start(settings(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);

        nextReload.set(() -> settings(inventory -> {
            throw new ResourcePlanException("flags.migStrategy was 'single' but it needs MIG");
        }, true));
        supervisor.reload();

        Await.until(() -> hasProblem(Problem.ReloadRejected.class, "migStrategy"), "rejection");
        assertThat(fatal).isEmpty();
        assertThat(node.status().ready()).isTrue();
        assertThat(kubelet.resource(GPU).orElseThrow().registrations()).isEqualTo(1);
    }

    @Test
    void stopRemovesTheSocketsAndClosesTheDevices() {
        kubelet = KubeletSimulator.start(dir);
        start(settings(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);

        assertThat(supervisor.stop(WAIT)).isTrue();

        assertThat(dir.resolve("nvidia-gpu.sock")).doesNotExist();
        assertThat(devices.openSources).hasValue(0);
        assertThat(node.status().running()).isFalse();
        assertThat(served).containsExactly("[nvidia.com/gpu=2]", "stopped");
        awaitGpus(r -> !r.connected() && r.allocatable() == 0);
    }

    /**
     * SIGTERM: the process exits as soon as the exit status is known. NVML (the device source, its event thread) must
     * be closed by then: the exit runs the NVML library's destructors, which must find no thread inside the library.
     */
    @Test
    void sigtermClosesTheDevicesBeforeTheExitStatusIsKnown() {
        kubelet = KubeletSimulator.start(dir);
        start(settings(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);
        AtomicReference<Boolean> closedAfterExit = new AtomicReference<>();
        devices.onClose = () -> closedAfterExit.set(supervisor.awaitExit(Duration.ZERO).isPresent());

        supervisor.stopForExit();
        supervisor.awaitExit();

        assertThat(devices.openSources).hasValue(0);
        assertThat(closedAfterExit).hasValue(false);
        assertThat(devices.watching()).isFalse();
    }
}
