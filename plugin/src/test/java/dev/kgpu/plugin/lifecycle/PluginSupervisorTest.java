package dev.kgpu.plugin.lifecycle;

import dev.kgpu.agent.Backoff;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.plugin.deviceplugin.allocation.AllocationSettings;
import dev.kgpu.plugin.deviceplugin.allocation.SharedAllocationPolicy;
import dev.kgpu.plugin.deviceplugin.grpc.GrpcKubelet;
import dev.kgpu.plugin.deviceplugin.resources.ResourcePlanException;
import dev.kgpu.plugin.deviceplugin.resources.ResourcePlanner;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.devices.Replication;
import dev.kgpu.plugin.health.HealthChecks;
import dev.kgpu.plugin.health.HealthPolicy;
import dev.kgpu.plugin.health.HealthTracker;
import dev.kgpu.plugin.lifecycle.PluginStatus.Problem;
import dev.kgpu.plugin.settings.PluginSettings;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.plugin.testing.Devices;
import dev.kgpu.plugin.testing.FakeDeviceSource;
import dev.kgpu.plugin.testing.TestClock;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodSpec;
import dev.kgpu.sim.kubelet.ResourceState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The supervisor's lifecycle against the kubelet simulator with an in-memory device source: everything
 * here runs without NVML. The same scenarios run on the mock NVML in the ITs of {@code dev.kgpu.plugin.it}.
 */
class PluginSupervisorTest {

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
    KubeletSimulator kubelet;
    PluginSupervisor supervisor;

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
        return new PluginSettings(Optional.of(dir.resolve("kubelet.sock")), dir, failOnInitError, planner,
                AllocationSettings.defaults(), SharedAllocationPolicy.DISTRIBUTED,
                new HealthPolicy(HealthChecks.DEFAULT, HealthPolicy.DEFAULT_QUIET_PERIOD, Set.of()), Duration.ofHours(1),
                NvmlOptions.defaults(), dev.kgpu.plugin.deviceplugin.CdiSettings.off(), java.nio.file.Path.of("/"), true, Optional.empty(),
                "{}", List.of());
    }

    /** Tells which resources each start served, and each stop. */
    final class Recorder implements LifecycleListener {
        @Override
        public void serving(PluginSettings settings, NodeInventory inventory, List<PluginResource> resources) {
            served.add(resources.stream().map(r -> r.name() + "=" + r.devices().size()).toList().toString());
        }

        @Override
        public void stopped() {
            served.add("stopped");
        }
    }

    PluginSupervisor start(PluginSettings settings) {
        supervisor = new PluginSupervisor(settings, () -> nextReload.get().get(), devices,
                new GrpcKubelet(settings.socketDirectory(), settings.kubeletSocket(), PluginMetrics.NONE), clock,
                PluginMetrics.NONE, new Backoff.Policy(Duration.ofMillis(50), Duration.ofSeconds(1)),
                List.of(new Recorder()), fatal::add);
        supervisor.start();
        return supervisor;
    }

    boolean hasProblem(Class<? extends Problem> kind, String text) {
        return supervisor.status().problems().stream().anyMatch(p -> kind.isInstance(p) && p.message().contains(text));
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
        Await.until(() -> supervisor.status().ready(), "readiness");
        assertThat(supervisor.status().live()).isTrue();
        assertThat(kubelet.admit(PodSpec.of("p", GPU, 1))).isInstanceOf(PodAdmission.Admitted.class);
    }

    @Test
    void startsWithoutAKubeletAndRegistersWhenItAppears() throws Exception {
        start(settings(planner(1), true));
        Await.until(() -> supervisor.status().serving().contains(GPU), "serving without a kubelet");
        assertThat(supervisor.status().ready()).isFalse();
        assertThat(supervisor.status().live()).isTrue();

        kubelet = KubeletSimulator.start(dir);

        awaitGpus(r -> r.allocatable() == 2);
        Await.until(() -> supervisor.status().ready(), "readiness after the kubelet came");
        // the starting kubelet deleted the plugin's socket before it created kubelet.sock: one restart, not two
        assertThat(kubelet.registrations()).singleElement().satisfies(e -> assertThat(e.accepted()).isTrue());
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

        assertThat(supervisor.checkHealthNow().recovered()).as("still inside the quiet period").isEmpty();

        clock.advance(HealthPolicy.DEFAULT_QUIET_PERIOD);
        assertThat(supervisor.checkHealthNow().recovered()).extracting(t -> t.uuid()).containsExactly(gpus.get(0).uuid());

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
        HealthTracker.CheckResult stillLost = supervisor.checkHealthNow();
        assertThat(stillLost.nvmlRestored()).isFalse();
        assertThat(stillLost.recovered()).isEmpty();

        devices.answerProbes();
        assertThat(supervisor.checkHealthNow().nvmlRestored()).isTrue();

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
        assertThat(supervisor.status().ready()).isFalse();
        assertThat(supervisor.status().problems())
                .containsExactly(new Problem.DevicesUnreadable("NVML could not start: Driver Not Loaded"));
        assertThat(fatal).isEmpty();

        // a later retry (the backoff stops at 1 s here) finds the devices
        devices.failOpen(null);

        awaitGpus(r -> r.allocatable() == 2);
        Await.until(() -> supervisor.status().ready(), "readiness");
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
        assertThat(supervisor.status().ready()).isTrue();
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
        assertThat(supervisor.status().ready()).isTrue();
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
        assertThat(supervisor.status().running()).isFalse();
        assertThat(served).containsExactly("[nvidia.com/gpu=2]", "stopped");
        awaitGpus(r -> !r.connected() && r.allocatable() == 0);
    }
}
