package dev.kgpu.plugin.lifecycle;

import dev.kgpu.plugin.allocation.AllocationSettings;
import dev.kgpu.plugin.allocation.SharedAllocationPolicy;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.devices.Replication;
import dev.kgpu.plugin.health.HealthPolicy;
import dev.kgpu.plugin.resources.PluginEvents;
import dev.kgpu.plugin.resources.ResourcePlanException;
import dev.kgpu.plugin.resources.ResourcePlanner;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.plugin.testing.Devices;
import dev.kgpu.plugin.testing.FakeDeviceSource;
import dev.kgpu.plugin.testing.TestClock;
import dev.kgpu.plugin.testing.kubelet.KubeletSimulator;
import dev.kgpu.plugin.testing.kubelet.PodAdmission;
import dev.kgpu.plugin.testing.kubelet.PodSpec;
import dev.kgpu.plugin.testing.kubelet.ResourceState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The supervisor's lifecycle against the kubelet simulator with an in-memory device source: everything
 * here runs without NVML. The same scenarios run on the mock NVML in {@code PluginMockNvmlIT}.
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
    final AtomicReference<SetupReload> nextReload = new AtomicReference<>();
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

    PluginSetup setup(ResourcePlanner planner, boolean failOnInitError) {
        return new PluginSetup(Optional.of(dir.resolve("kubelet.sock")), dir, failOnInitError, planner,
                AllocationSettings.defaults(), SharedAllocationPolicy.DISTRIBUTED, "{}");
    }

    PluginSupervisor start(PluginSetup setup) {
        supervisor = new PluginSupervisor(setup, nextReload::get, devices, HealthPolicy.defaults(), clock,
                PluginEvents.NONE, new PluginSupervisor.Timing(Duration.ofHours(1), Duration.ofMillis(50), Duration.ofSeconds(1)),
                fatal::add);
        supervisor.start();
        return supervisor;
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
        start(setup(planner(1), true));

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
        start(setup(planner(1), true));
        Await.until(() -> supervisor.status().serving().contains(GPU), "serving without a kubelet");
        assertThat(supervisor.status().ready()).isFalse();
        assertThat(supervisor.status().live()).isTrue();

        kubelet = KubeletSimulator.start(dir);

        awaitGpus(r -> r.allocatable() == 2);
        Await.until(() -> supervisor.status().ready(), "readiness after the kubelet came");
    }

    @Test
    void anXidMarksTheGpuUnhealthyAndItRecoversAfterTheQuietPeriod() {
        kubelet = KubeletSimulator.start(dir);
        start(setup(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);
        Await.until(devices::watching, "the health watch");

        devices.xid(gpus.get(0).uuid(), 94);

        ResourceState down = awaitGpus(r -> r.allocatable() == 1);
        assertThat(down.unhealthyIds()).containsExactly(gpus.get(0).uuid());
        assertThat(down.capacity()).isEqualTo(2);

        supervisor.checkHealthNow();
        assertThat(supervisor.health().isHealthy(gpus.get(0).uuid())).as("still inside the quiet period").isFalse();

        clock.advance(HealthPolicy.DEFAULT_QUIET_PERIOD);
        supervisor.checkHealthNow();

        awaitGpus(r -> r.allocatable() == 2);
    }

    @Test
    void losingNvmlMarksEverythingUnhealthyUntilProbesAnswer() {
        kubelet = KubeletSimulator.start(dir);
        start(setup(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);
        Await.until(devices::watching, "the health watch");
        gpus.forEach(g -> devices.failProbe(g.uuid()));

        devices.loseNvml("nvmlEventSetWait_v2: Driver Not Loaded");

        awaitGpus(r -> r.allocatable() == 0 && r.capacity() == 2);
        supervisor.checkHealthNow();
        assertThat(supervisor.health().nvmlLost()).isTrue();

        devices.answerProbes();
        supervisor.checkHealthNow();

        awaitGpus(r -> r.allocatable() == 2);
        Await.until(devices::watching, "the health watch restarted");
        assertThat(devices.watches).hasValue(2);
    }

    @Test
    void aKubeletRestartLeadsToANewRegistration() {
        kubelet = KubeletSimulator.start(dir);
        start(setup(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);

        kubelet.restart();

        ResourceState state = awaitGpus(r -> r.registrations() == 2 && r.allocatable() == 2);
        assertThat(state.connected()).isTrue();
        assertThat(dir.resolve("nvidia-gpu.sock")).exists();
    }

    @Test
    void aDeletedPluginSocketIsServedAgain() throws Exception {
        kubelet = KubeletSimulator.start(dir);
        start(setup(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);

        Files.delete(dir.resolve("nvidia-gpu.sock"));

        awaitGpus(r -> r.registrations() == 2 && r.allocatable() == 2);
        assertThat(dir.resolve("nvidia-gpu.sock")).exists();
    }

    @Test
    void unreadableDevicesRegisterNothingAndAreRetried() {
        kubelet = KubeletSimulator.start(dir);
        devices.failOpen("NVML could not start: Driver Not Loaded");
        start(setup(planner(1), false));

        Await.until(() -> devices.opens.get() >= 2, "a retry");
        assertThat(kubelet.resources()).isEmpty();
        assertThat(supervisor.status().ready()).isFalse();
        assertThat(supervisor.status().problem()).contains("NVML could not start: Driver Not Loaded");
        assertThat(fatal).isEmpty();

        devices.failOpen(null);
        supervisor.retryNow();

        awaitGpus(r -> r.allocatable() == 2);
        Await.until(() -> supervisor.status().ready(), "readiness");
    }

    @Test
    void unreadableDevicesWithFailOnInitErrorAskToExit() {
        devices.failOpen("NVML could not start: Driver Not Loaded");
        start(setup(planner(1), true));

        Await.until(() -> !fatal.isEmpty(), "the fatal callback");
        assertThat(fatal).containsExactly("NVML could not start: Driver Not Loaded");
    }

    @Test
    void aPlanThatCannotBeMetAsksToExitWithItsMessage() {
        ResourcePlanner impossible = inventory -> {
            throw new ResourcePlanException("flags.migStrategy was 'single' but it needs identical MIG devices");
        };
        start(setup(impossible, false));

        Await.until(() -> !fatal.isEmpty(), "the fatal callback");
        assertThat(fatal).containsExactly("flags.migStrategy was 'single' but it needs identical MIG devices");
    }

    @Test
    void sighupRestartsWithTheNewConfigAndABadOneKeepsTheRunningConfig() {
        kubelet = KubeletSimulator.start(dir);
        start(setup(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);

        nextReload.set(new SetupReload.Loaded(setup(planner(4), true)));
        supervisor.reload();
        awaitGpus(r -> r.allocatable() == 8);

        nextReload.set(new SetupReload.Rejected("invalid configuration: sharing.timeSlicing.resources[0].replicas was '1' but it must be at least 2"));
        long registrations = kubelet.resource(GPU).orElseThrow().registrations();
        supervisor.reload();

        Await.until(() -> supervisor.status().problem().filter(p -> p.contains("replicas was '1'")).isPresent(), "rejection");
        assertThat(kubelet.resource(GPU).orElseThrow().registrations()).isEqualTo(registrations);
        assertThat(kubelet.resource(GPU).orElseThrow().allocatable()).isEqualTo(8);
        assertThat(supervisor.status().ready()).isTrue();
    }

    @Test
    void aReloadWhosePlanFailsKeepsTheRunningServers() {
        kubelet = KubeletSimulator.start(dir);
        start(setup(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);

        nextReload.set(new SetupReload.Loaded(setup(inventory -> {
            throw new ResourcePlanException("flags.migStrategy was 'single' but it needs MIG");
        }, true)));
        supervisor.reload();

        Await.until(() -> supervisor.status().problem().filter(p -> p.contains("migStrategy")).isPresent(), "rejection");
        assertThat(fatal).isEmpty();
        assertThat(supervisor.status().ready()).isTrue();
        assertThat(kubelet.resource(GPU).orElseThrow().registrations()).isEqualTo(1);
    }

    @Test
    void stopRemovesTheSocketsAndClosesTheDevices() {
        kubelet = KubeletSimulator.start(dir);
        start(setup(planner(1), true));
        awaitGpus(r -> r.allocatable() == 2);

        assertThat(supervisor.stop(WAIT)).isTrue();

        assertThat(dir.resolve("nvidia-gpu.sock")).doesNotExist();
        assertThat(devices.openSources).hasValue(0);
        assertThat(supervisor.status().running()).isFalse();
        awaitGpus(r -> !r.connected() && r.allocatable() == 0);
    }
}
