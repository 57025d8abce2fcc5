package dev.kgpu.nvml;

import dev.kgpu.nvml.mock.Json;
import dev.kgpu.nvml.mock.MockNvml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** XID and ECC events through nvmlEventSetWait_v2 on the monitor's own thread. */
class HealthMonitorTest {

    private static final String THREAD = "nvml-health-events";

    private final BlockingQueue<HealthEvent> events = new LinkedBlockingQueue<>();

    @AfterEach
    void resetMock() {
        MockNode.MOCK.reset();
    }

    private HealthEvent next() throws InterruptedException {
        HealthEvent event = events.poll(5, TimeUnit.SECONDS);
        assertThat(event).as("an event within 5 s").isNotNull();
        return event;
    }

    private static List<Thread> monitorThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().equals(THREAD) && thread.isAlive()).toList();
    }

    @Test
    void anInjectedXidReachesTheListenerOnThePlatformThread() throws InterruptedException {
        BlockingQueue<Thread> deliveredOn = new LinkedBlockingQueue<>();
        try (Nvml nvml = MockNode.open("dgx-a100");
             HealthMonitor monitor = nvml.startHealthMonitor(nvml.devices(), event -> {
                 deliveredOn.add(Thread.currentThread());
                 events.add(event);
             })) {
            assertThat(monitor.unmonitoredDevices()).isEmpty();
            assertThat(monitor.running()).isTrue();
            String uuid = nvml.device(3).uuid();

            MockNode.MOCK.injectXid(uuid, 79);

            assertThat(next()).isInstanceOfSatisfying(HealthEvent.XidError.class, xid -> {
                assertThat(xid.gpuUuid()).isEqualTo(uuid);
                assertThat(xid.xid()).isEqualTo(79);
                assertThat(xid.gpuInstanceId()).isEmpty();
                assertThat(xid.computeInstanceId()).isEmpty();
                assertThat(xid.observedAt()).isNotNull();
            });
            Thread thread = deliveredOn.poll(1, TimeUnit.SECONDS);
            assertThat(thread).isNotNull();
            assertThat(thread.getName()).isEqualTo(THREAD);
            assertThat(thread.isVirtual()).isFalse();
        }
    }

    @Test
    void aLineAppendedToTheEventsFileIsDelivered() throws InterruptedException {
        assertThat(MockNvml.eventsFile()).as("surefire sets MOCK_NVML_EVENTS").isPresent();
        try (Nvml nvml = MockNode.open("dgx-h100");
             HealthMonitor monitor = nvml.startHealthMonitor(nvml.devices(), events::add)) {
            String uuid = nvml.device(6).uuid();

            MockNvml.appendXidToEventsFile(uuid, 48);

            assertThat(next()).isInstanceOfSatisfying(HealthEvent.XidError.class, xid -> {
                assertThat(xid.gpuUuid()).isEqualTo(uuid);
                assertThat(xid.xid()).isEqualTo(48);
            });
            assertThat(monitor.running()).isTrue();
        }
    }

    @Test
    void eccEventsSayWhetherTheyWereCorrectable() throws InterruptedException {
        try (Nvml nvml = MockNode.open("dgx-a100");
             HealthMonitor ignored = nvml.startHealthMonitor(List.of(nvml.device(0), nvml.device(1)), events::add)) {
            String uuid = nvml.device(1).uuid();

            MockNode.MOCK.injectEcc(uuid, true);
            MockNode.MOCK.injectEcc(uuid, false);

            assertThat(next()).isInstanceOfSatisfying(HealthEvent.EccError.class, ecc -> {
                assertThat(ecc.gpuUuid()).isEqualTo(uuid);
                assertThat(ecc.uncorrectable()).isTrue();
            });
            assertThat(next()).isInstanceOfSatisfying(HealthEvent.EccError.class,
                    ecc -> assertThat(ecc.uncorrectable()).isFalse());
        }
    }

    @Test
    void eventsOfUnwatchedGpusDoNotArrive() throws InterruptedException {
        try (Nvml nvml = MockNode.open("dgx-a100");
             HealthMonitor ignored = nvml.startHealthMonitor(List.of(nvml.device(0)), events::add)) {
            MockNode.MOCK.injectXid(nvml.device(5).uuid(), 31);
            MockNode.MOCK.injectXid(nvml.device(0).uuid(), 62);

            assertThat(next()).isInstanceOfSatisfying(HealthEvent.XidError.class, xid -> {
                assertThat(xid.gpuUuid()).isEqualTo(nvml.device(0).uuid());
                assertThat(xid.xid()).isEqualTo(62);
            });
            assertThat(events).isEmpty();
        }
    }

    @Test
    void aMigXidNamesTheParentAndTheInstances() throws InterruptedException {
        try (Nvml nvml = MockNode.open("mig-mixed");
             HealthMonitor ignored = nvml.startHealthMonitor(nvml.devices(), events::add)) {
            MigDevice mig = nvml.device(3).migDevices().get(2); // 1c.2g.20gb, GI 3, CI 1

            MockNode.MOCK.injectXid(mig.uuid(), 43);

            assertThat(next()).isInstanceOfSatisfying(HealthEvent.XidError.class, xid -> {
                assertThat(xid.gpuUuid()).isEqualTo(nvml.device(3).uuid());
                assertThat(xid.xid()).isEqualTo(43);
                assertThat(xid.gpuInstanceId()).hasValue(mig.gpuInstanceId());
                assertThat(xid.computeInstanceId()).hasValue(mig.computeInstanceId());
            });
            assertThat(mig.gpuInstanceId()).isEqualTo(3);
            assertThat(mig.computeInstanceId()).isEqualTo(1);
        }
    }

    @Test
    void gpusWithoutHealthEventsAreListedAsUnmonitored(@TempDir Path dir) throws IOException, InterruptedException {
        Map<String, Object> root = Json.mutableCopy(MockNvml.profile("dgx-a100").root());
        @SuppressWarnings("unchecked") Map<String, Object> gpu2 =
                (Map<String, Object>) ((List<Object>) root.get("gpus")).get(2);
        gpu2.put("supportedEvents", List.of("PState", "Clock"));
        Path profile = dir.resolve("no-events.json");
        Files.writeString(profile, Json.write(root));
        MockNode.MOCK.useProfile(profile.toString());
        try (Nvml nvml = Nvml.open();
             HealthMonitor monitor = nvml.startHealthMonitor(nvml.devices(), events::add)) {
            assertThat(monitor.unmonitoredDevices()).containsExactly(nvml.device(2));

            MockNode.MOCK.injectXid(nvml.device(4).uuid(), 94);

            assertThat(next()).isInstanceOf(HealthEvent.XidError.class);
        }
    }

    @Test
    void closeStopsTheThread() {
        try (Nvml nvml = MockNode.open("rtx3060")) {
            HealthMonitor monitor = nvml.startHealthMonitor(nvml.devices(), events::add);
            assertThat(monitorThreads()).hasSize(1);

            monitor.close();

            assertThat(monitor.running()).isFalse();
            assertThat(monitorThreads()).isEmpty();
            monitor.close();
        }
    }

    @Test
    void closingNvmlStopsItsMonitors() {
        Nvml nvml = MockNode.open("dgx-h100");
        HealthMonitor monitor = nvml.startHealthMonitor(nvml.devices(), events::add);

        nvml.close();

        assertThat(monitor.running()).isFalse();
        assertThat(monitorThreads()).isEmpty();
    }

    @Test
    void aFailingWaitIsReportedOnceAndStopsTheMonitor() throws InterruptedException {
        try (Nvml nvml = MockNode.open("dgx-a100")) {
            MockNode.MOCK.failNext("nvmlEventSetWait_v2", NvmlReturnCode.ERROR_GPU_IS_LOST, 1);
            HealthMonitor monitor = nvml.startHealthMonitor(nvml.devices(), events::add);

            assertThat(next()).isInstanceOfSatisfying(HealthEvent.MonitorFailure.class, failure -> {
                assertThat(failure.cause()).isInstanceOf(NvmlException.GpuLost.class);
                assertThat(failure.cause().function()).isEqualTo("nvmlEventSetWait_v2");
            });
            assertThat(monitor.running()).isFalse();
            MockNode.MOCK.injectXid(nvml.device(0).uuid(), 79);
            assertThat(events.poll(1, TimeUnit.SECONDS)).as("nothing after the failure").isNull();
            monitor.close();
        }
    }

    @Test
    void aThrowingListenerDoesNotStopTheMonitor() throws InterruptedException {
        try (Nvml nvml = MockNode.open("rtx3060");
             HealthMonitor monitor = nvml.startHealthMonitor(nvml.devices(), event -> {
                 events.add(event);
                 throw new IllegalStateException("listener bug");
             })) {
            String uuid = nvml.device(0).uuid();
            MockNode.MOCK.injectXid(uuid, 13);
            MockNode.MOCK.injectXid(uuid, 45);

            assertThat(next()).isInstanceOf(HealthEvent.XidError.class);
            assertThat(next()).isInstanceOf(HealthEvent.XidError.class);
            assertThat(monitor.running()).isTrue();
        }
    }
}
