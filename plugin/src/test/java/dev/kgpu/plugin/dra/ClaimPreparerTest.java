package dev.kgpu.plugin.dra;

import dev.kgpu.cdi.CdiRegistry;
import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.nvml.mock.SimulatedDriverRoot;
import dev.kgpu.plugin.devices.ComputeModes;
import dev.kgpu.plugin.devices.DeviceSourceException;
import dev.kgpu.plugin.devices.DriverInfo;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.node.AllocationLedger;
import dev.kgpu.plugin.node.ClaimRef;
import dev.kgpu.plugin.node.DeviceUnit;
import dev.kgpu.plugin.node.ExclusiveLedger;
import dev.kgpu.plugin.testing.Devices;
import dev.kgpu.plugin.testing.RefusingLedger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * NodePrepareResources / NodeUnprepareResources without gRPC: claims read from a map, devices of a node of two GPUs and
 * a MIG GPU, specs written for a simulated driver root and resolved as the runtime resolves them.
 */
class ClaimPreparerTest {

    static final String NODE = "node-1";
    static final String VERSION = "550.54.15";

    @TempDir
    Path dir;

    final Map<String, ClaimAllocation> allocations = new ConcurrentHashMap<>();
    final AtomicInteger reads = new AtomicInteger();
    final Map<String, String> unhealthy = new ConcurrentHashMap<>();
    final Map<String, Integer> counted = new ConcurrentHashMap<>();
    final AtomicReference<NodeDevices> devices = new AtomicReference<>();
    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    AllocationLedger ledger = new ExclusiveLedger();
    TimeSlicing timeSlicing = TimeSlicing.assumedDefault();
    ClaimSpecs specs;

    @BeforeEach
    void node() throws Exception {
        Path root = dir.resolve("node");
        SimulatedDriverRoot.write(root, VERSION, List.of(
                new SimulatedDriverRoot.Gpu(0, "0000:01:00.0", 0x20B210DE, 0x147F10DE, OptionalInt.of(0), false, List.of()),
                new SimulatedDriverRoot.Gpu(1, "0000:02:00.0", 0x20B210DE, 0x147F10DE, OptionalInt.of(0), false, List.of()),
                new SimulatedDriverRoot.Gpu(2, "0000:03:00.0", 0x20B210DE, 0x147F10DE, OptionalInt.of(0), false,
                        List.of(new SimulatedDriverRoot.MigInstance(1, 0), new SimulatedDriverRoot.MigInstance(2, 0)))),
                Optional.empty());
        devices.set(NodeDevices.of(new NodeInventory(List.of(Devices.gpu(0), Devices.gpu(1),
                Devices.migGpu(2, "3g.40gb", "1g.10gb")), Map.of(), new DriverInfo(VERSION, "12.4"))));
        specs = new ClaimSpecs(dir.resolve("cdi"), NvidiaCdiGenerator.Options.devicePlugin(root, root,
                NvidiaCdiGenerator.NameStrategy.UUID).withSystemRoots(root, root));
    }

    ClaimPreparer preparer() {
        return preparer(dir.resolve("kgpu-checkpoint.json"));
    }

    ClaimPreparer preparer(Path checkpointFile) {
        return new ClaimPreparer(NODE, claim -> {
            reads.incrementAndGet();
            return allocations.getOrDefault(claim.uid(), new ClaimAllocation.NotFound());
        }, ClaimCheckpoint.open(checkpointFile, "boot"), specs, devices::get,
                uuid -> Optional.ofNullable(unhealthy.get(uuid)), ledger, timeSlicing, InstantSource.fixed(NOW), new DraMetrics() {
            @Override
            public void claim(String operation, boolean success) {
                counted.merge(operation + "/" + success, 1, Integer::sum);
            }
        });
    }

    static ClaimRef ref(String uid) {
        return new ClaimRef("ml", "claim-" + uid, uid);
    }

    void allocate(String uid, AllocatedDevice... results) {
        allocations.put(uid, new ClaimAllocation.Allocated(List.of(results)));
    }

    static AllocatedDevice gpu(String request, String device) {
        return new AllocatedDevice(request, DraNames.DRIVER, NODE, device);
    }

    CdiRegistry registry() {
        return CdiRegistry.load(List.of(dir.resolve("cdi")));
    }

    @Test
    void aGpuClaimGetsItsCdiNameAndASpecTheRuntimeResolves() {
        allocate("uid-1", gpu("gpu", "gpu-1"));

        ClaimResult result = preparer().prepare(List.of(ref("uid-1"))).get("uid-1");

        assertThat(result).isEqualTo(new ClaimResult.Prepared(List.of(new PreparedDevice(List.of("gpu"), NODE, "gpu-1",
                Devices.gpuUuid(1), List.of("k8s.gpu.nvidia.com/claim=uid-1-gpu-1")))));
        assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-1.json")).exists();
        CdiSpec.ContainerEdits edits = registry().resolve(List.of("k8s.gpu.nvidia.com/claim=uid-1-gpu-1"));
        assertThat(edits.deviceNodes()).extracting(CdiSpec.DeviceNode::path).contains("/dev/nvidia1", "/dev/nvidiactl")
                .doesNotContain("/dev/nvidia0");
        assertThat(edits.mounts()).extracting(CdiSpec.Mount::containerPath)
                .contains("/" + SimulatedDriverRoot.LIBRARY_DIR + "/libcuda.so." + VERSION);
        assertThat(counted).containsExactlyEntriesOf(Map.of("prepare/true", 1));
    }

    @Test
    void migDevicesAndSubrequestsAreServedOncePerDeviceWithTheRequestsTheyServe() {
        allocate("uid-1", gpu("small/mig", "gpu-2-mig-1g10gb-20-1"), gpu("big", "gpu-2-mig-3g40gb-19-0"),
                gpu("other", "gpu-2-mig-1g10gb-20-1"), new AllocatedDevice("nic", "net.example.com", NODE, "eth0"));

        ClaimResult.Prepared prepared = (ClaimResult.Prepared) preparer().prepare(List.of(ref("uid-1"))).get("uid-1");

        assertThat(prepared.devices()).extracting(PreparedDevice::device, PreparedDevice::requests).containsExactly(
                org.assertj.core.groups.Tuple.tuple("gpu-2-mig-1g10gb-20-1", List.of("small", "other")),
                org.assertj.core.groups.Tuple.tuple("gpu-2-mig-3g40gb-19-0", List.of("big")));
        CdiSpec.ContainerEdits small = registry().resolve(List.of("k8s.gpu.nvidia.com/claim=uid-1-gpu-2-mig-1g10gb-20-1"));
        assertThat(small.deviceNodes()).extracting(CdiSpec.DeviceNode::path).contains("/dev/nvidia2",
                "/dev/nvidia-caps/nvidia-cap" + SimulatedDriverRoot.gpuInstanceCapMinor(2, 2),
                "/dev/nvidia-caps/nvidia-cap" + SimulatedDriverRoot.computeInstanceCapMinor(2, 2, 0));
    }

    @Test
    void aClaimIsPreparedOnceEvenAcrossARestartAndItsLostSpecIsWrittenAgain() throws Exception {
        allocate("uid-1", gpu("gpu", "gpu-0"));
        ClaimResult first = preparer().prepare(List.of(ref("uid-1"))).get("uid-1");
        allocations.clear(); // the claim is gone from the API server: only the checkpoint can answer now

        ClaimPreparer restarted = preparer();
        assertThat(restarted.prepare(List.of(ref("uid-1"))).get("uid-1")).isEqualTo(first);
        Files.delete(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-1.json"));
        assertThat(restarted.prepare(List.of(ref("uid-1"))).get("uid-1")).isEqualTo(first);

        assertThat(reads).as("the API server was asked once").hasValue(1);
        assertThat(registry().resolve(List.of("k8s.gpu.nvidia.com/claim=uid-1-gpu-0")).deviceNodes())
                .extracting(CdiSpec.DeviceNode::path).contains("/dev/nvidia0");
        assertThat(restarted.prepared()).extracting(p -> p.claim().uid()).containsExactly("uid-1");
    }

    @Test
    void unprepareRemovesTheSpecAndForgetsTheClaimAndIsIdempotent() throws Exception {
        allocate("uid-1", gpu("gpu", "gpu-0"));
        ClaimPreparer preparer = preparer();
        preparer.prepare(List.of(ref("uid-1")));
        Files.writeString(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-9.yaml"), "left by NVIDIA's driver");

        assertThat(preparer.unprepare(List.of(ref("uid-1"), ref("uid-9")))).containsExactly(
                Map.entry("uid-1", Optional.empty()), Map.entry("uid-9", Optional.empty()));
        assertThat(preparer.unprepare(List.of(ref("uid-1")))).containsExactly(Map.entry("uid-1", Optional.empty()));

        try (Stream<Path> files = Files.list(dir.resolve("cdi"))) {
            assertThat(files).isEmpty();
        }
        assertThat(preparer().prepared()).as("after a restart too").isEmpty();
        assertThat(counted).containsEntry("unprepare/true", 3);
    }

    static Stream<Object[]> failures() {
        return Stream.of(
                new Object[]{"not found", null, "ResourceClaim ml/claim-uid-1 was not found in the API server"},
                new Object[]{"not allocated", new ClaimAllocation.NotAllocated(), "ResourceClaim ml/claim-uid-1 is not allocated"},
                new Object[]{"replaced", new ClaimAllocation.Replaced("uid-2"),
                        "ResourceClaim ml/claim-uid-1 has UID uid-2, not uid-1: the claim was deleted and created again"},
                new Object[]{"API down", new ClaimAllocation.Unreadable("the API server could not be reached: refused"),
                        "could not read ResourceClaim ml/claim-uid-1: the API server could not be reached: refused"},
                new Object[]{"another node's pool", new ClaimAllocation.Allocated(List.of(new AllocatedDevice("gpu",
                        DraNames.DRIVER, "node-2", "gpu-0"))),
                        "device gpu-0 of request gpu was allocated from pool node-2, but this node's pool is node-1"},
                new Object[]{"vanished device", new ClaimAllocation.Allocated(List.of(gpu("gpu", "gpu-9"))),
                        "device gpu-9 (request gpu) is not on this node any more: it has [gpu-0, gpu-1, gpu-2-mig-1g10gb-20-1,"},
                new Object[]{"unhealthy device", new ClaimAllocation.Allocated(List.of(gpu("gpu", "gpu-1"))),
                        "device gpu-1 (" + Devices.gpuUuid(1) + ") is unhealthy: XID 79 (needs a GPU reset)"});
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void aClaimThatCannotBePreparedFailsAloneWithItsReasonAndLeavesNothing(String description, ClaimAllocation allocation,
                                                                          String error) {
        if (allocation != null) {
            allocations.put("uid-1", allocation);
        }
        allocate("uid-ok", gpu("gpu", "gpu-0"));
        unhealthy.put(Devices.gpuUuid(1), "XID 79 (needs a GPU reset)");
        ClaimPreparer preparer = preparer();

        Map<String, ClaimResult> results = preparer.prepare(List.of(ref("uid-1"), ref("uid-ok")));

        assertThat(results.keySet()).containsExactly("uid-1", "uid-ok");
        assertThat(results.get("uid-1")).isInstanceOfSatisfying(ClaimResult.Failed.class,
                failed -> assertThat(failed.error()).startsWith(error));
        assertThat(results.get("uid-ok")).isInstanceOf(ClaimResult.Prepared.class);
        assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-1.json")).doesNotExist();
        assertThat(preparer.prepared()).extracting(p -> p.claim().uid()).containsExactly("uid-ok");
        assertThat(counted).containsExactlyInAnyOrderEntriesOf(Map.of("prepare/false", 1, "prepare/true", 1));
    }

    @Test
    void devicesThatCannotBeReadFailEveryNewClaim() {
        allocate("uid-1", gpu("gpu", "gpu-0"));
        devices.set(NodeDevices.unreadable("NVML could not start: driver not loaded"));

        Map<String, ClaimResult> results = preparer().prepare(List.of(ref("uid-1")));

        assertThat(results.get("uid-1")).isEqualTo(new ClaimResult.Failed(
                "device gpu-0 cannot be prepared: this node's GPUs cannot be read (NVML could not start: driver not loaded)"));
        assertThat(dir.resolve("cdi")).doesNotExist();
    }

    static Stream<Object[]> nothingOfThisDriver() {
        return Stream.of(
                new Object[]{"empty results", List.of(), "ResourceClaim ml/claim-uid-1 has no allocated device: nothing to prepare"},
                new Object[]{"another driver only", List.of(new AllocatedDevice("nic", "net.example.com", NODE, "eth0"),
                        new AllocatedDevice("fpga", "fpga.example.com", NODE, "f0")),
                        "ResourceClaim ml/claim-uid-1 was allocated no device of gpu.nvidia.com (only net.example.com,"
                                + " fpga.example.com)"},
                new Object[]{"a result without its device", List.of(gpu("gpu", "gpu-0"), new AllocatedDevice("more",
                        DraNames.DRIVER, NODE, "")),
                        "ResourceClaim ml/claim-uid-1 result 1 (request 'more') names no device (pool 'node-1', device '')"},
                new Object[]{"a result without its pool", List.of(new AllocatedDevice("gpu", DraNames.DRIVER, "", "gpu-0")),
                        "ResourceClaim ml/claim-uid-1 result 0 (request 'gpu') names no device (pool '', device 'gpu-0')"});
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nothingOfThisDriver")
    void aClaimWithNoDeviceOfThisDriverIsRefusedAloneAndLeavesNothing(String description, List<AllocatedDevice> results,
                                                                    String error) {
        allocations.put("uid-1", new ClaimAllocation.Allocated(results));
        allocate("uid-ok", gpu("gpu", "gpu-1"));
        ClaimPreparer preparer = preparer();

        Map<String, ClaimResult> answers = preparer.prepare(List.of(ref("uid-1"), ref("uid-ok")));

        assertThat(answers.get("uid-1")).isEqualTo(new ClaimResult.Failed(error));
        assertThat(answers.get("uid-ok")).isInstanceOf(ClaimResult.Prepared.class);
        assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-1.json")).doesNotExist();
        assertThat(preparer.prepared()).extracting(p -> p.claim().uid()).containsExactly("uid-ok");
        assertThat(ledger.view().entries()).extracting(h -> ((AllocationLedger.Hold.DraHold) h).claim().uid())
                .containsExactly("uid-ok");
    }

    @Test
    void aBatchMixingGoodAndBrokenReferencesPreparesTheGoodOnesAndAnswersEachBrokenOneAlone() {
        allocate("uid-a", gpu("gpu", "gpu-0"));
        allocate("uid-b", gpu("gpu", "gpu-1"));
        allocate("uid-dup", gpu("gpu", "gpu-2-mig-3g40gb-19-0"));
        ClaimPreparer preparer = preparer();

        Map<String, ClaimResult> results = preparer.prepare(List.of(ref("uid-a"), new ClaimRef("", "no-namespace", "uid-ns"),
                ref("uid-b"), new ClaimRef("ml", "", "uid-name"), new ClaimRef("ml", "no-uid", ""),
                new ClaimRef("ml", "one", "uid-dup"), new ClaimRef("ml", "two", "uid-dup"), ref("uid-missing"),
                new ClaimRef("ml", "bad-uid", "../../etc/passwd"), new ClaimRef("ML", "upper", "uid-upper"), ref("uid-a")));

        assertThat(results.keySet()).containsExactly("uid-a", "uid-ns", "uid-b", "uid-name", "", "uid-dup", "uid-missing",
                "../../etc/passwd", "uid-upper");
        assertThat(results.get("uid-a")).isInstanceOf(ClaimResult.Prepared.class);
        assertThat(results.get("uid-b")).isInstanceOf(ClaimResult.Prepared.class);
        assertThat(errors(results)).containsExactly(
                Map.entry("uid-ns", "claim uid-ns: the kubelet sent no namespace (name 'no-namespace')"),
                Map.entry("uid-name", "claim uid-name: the kubelet sent no name (namespace 'ml')"),
                Map.entry("", "claim ml/no-uid: the kubelet sent no UID"),
                Map.entry("uid-dup", "claim uid-dup was sent more than once in this call, as ml/one and ml/two"),
                Map.entry("uid-missing", "ResourceClaim ml/claim-uid-missing was not found in the API server (deleted?)"),
                Map.entry("../../etc/passwd", "claim ml/bad-uid: UID '../../etc/passwd' is not a Kubernetes UID"),
                Map.entry("uid-upper", "claim uid-upper: namespace 'ML' is not a DNS label"));
        assertThat(reads).as("only the well-formed claims were looked up").hasValue(3);
        assertThat(preparer.prepared()).extracting(p -> p.claim().uid()).containsExactly("uid-a", "uid-b");
        try (Stream<Path> files = Files.list(dir.resolve("cdi"))) {
            assertThat(files).extracting(f -> f.getFileName().toString()).containsExactlyInAnyOrder(
                    "k8s.gpu.nvidia.com-claim_uid-a.json", "k8s.gpu.nvidia.com-claim_uid-b.json");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }

        assertThat(errors(preparer.unprepare(List.of(new ClaimRef("ml", "x", ""), ref("uid-a")))
                .entrySet().stream().collect(java.util.stream.Collectors.toMap(Map.Entry::getKey,
                        e -> e.getValue().<ClaimResult>map(ClaimResult.Failed::new)
                                .orElse(new ClaimResult.Prepared(List.of())), (a, b) -> a, java.util.LinkedHashMap::new))))
                .containsExactly(Map.entry("", "claim ml/x: the kubelet sent no UID"));
        assertThat(preparer.prepared()).extracting(p -> p.claim().uid()).containsExactly("uid-b");
    }

    @Test
    void aClaimWhosePreparingThrowsFailsAloneAndTheOthersArePrepared() {
        allocate("uid-ok", gpu("gpu", "gpu-1"));
        ClaimPreparer preparer = new ClaimPreparer(NODE, claim -> {
            if (claim.uid().equals("uid-bug")) {
                throw new IllegalStateException("a bug in reading");
            }
            return allocations.get(claim.uid());
        }, ClaimCheckpoint.open(dir.resolve("kgpu-checkpoint.json"), "boot"), specs, devices::get,
                uuid -> Optional.empty(), ledger, TimeSlicing.assumedDefault(), InstantSource.fixed(NOW), new DraMetrics() {
        });

        Map<String, ClaimResult> results = preparer.prepare(List.of(ref("uid-bug"), ref("uid-ok")));

        assertThat(results.get("uid-bug")).isEqualTo(new ClaimResult.Failed(
                "internal error preparing claim: java.lang.IllegalStateException: a bug in reading"));
        assertThat(results.get("uid-ok")).isInstanceOf(ClaimResult.Prepared.class);
    }

    static Map<String, String> errors(Map<String, ClaimResult> results) {
        Map<String, String> errors = new java.util.LinkedHashMap<>();
        results.forEach((uid, result) -> {
            if (result instanceof ClaimResult.Failed failed) {
                errors.put(uid, failed.error());
            }
        });
        return errors;
    }

    @Test
    void anEmptyCallIsAnsweredEmpty() {
        ClaimPreparer preparer = preparer();
        assertThat(preparer.prepare(List.of())).isEmpty();
        assertThat(preparer.unprepare(List.of())).isEmpty();
        assertThat(new HashMap<>(counted)).isEmpty();
    }

    @Test
    void aPreparedClaimHoldsItsDevicesInTheLedgerUntilItIsUnprepared() {
        allocate("uid-1", gpu("gpu", "gpu-0"), gpu("mig", "gpu-2-mig-1g10gb-20-1"));
        DeviceUnit mig = DeviceUnit.of(devices.get().device("gpu-2-mig-1g10gb-20-1").orElseThrow().device());
        ClaimPreparer preparer = preparer();

        preparer.prepare(List.of(ref("uid-1")));

        assertThat(ledger.view().entries()).containsExactly(
                new AllocationLedger.Hold.DraHold(new DeviceUnit(Devices.gpuUuid(0), Optional.empty()), ref("uid-1"), "gpu-0",
                        NOW, false),
                new AllocationLedger.Hold.DraHold(mig, ref("uid-1"), "gpu-2-mig-1g10gb-20-1", NOW, false));
        assertThat(ledger.view().heldByDra(new DeviceUnit(Devices.gpuUuid(2), Optional.empty())))
                .as("the MIG device's GPU").isTrue();
        assertThat(ledger.view().heldByDra(new DeviceUnit(Devices.gpuUuid(1), Optional.empty()))).isFalse();

        preparer.unprepare(List.of(ref("uid-1")));

        assertThat(ledger.view().entries()).isEmpty();
    }

    @Test
    void aClaimWhoseDeviceTheLedgerRefusesFailsAloneNamingTheHolderAndWritesNothing() {
        DeviceUnit gpu0 = new DeviceUnit(Devices.gpuUuid(0), Optional.empty());
        ledger = new RefusingLedger(new AllocationLedger.Hold.DevicePluginHold(gpu0, "nvidia.com/gpu", Devices.gpuUuid(0),
                NOW.minusSeconds(60), AllocationLedger.Source.POD_RESOURCES,
                Optional.of(new AllocationLedger.KubeletAllocations.Pod("ml", "cuda-demo", "pod-uid"))));
        allocate("uid-1", gpu("gpu", "gpu-0"));
        allocate("uid-ok", gpu("gpu", "gpu-1"));
        ClaimPreparer preparer = preparer();

        Map<String, ClaimResult> results = preparer.prepare(List.of(ref("uid-1"), ref("uid-ok")));

        assertThat(results.get("uid-1")).isEqualTo(new ClaimResult.Failed("requested device gpu-0 (" + Devices.gpuUuid(0)
                + ") is in use through the device plugin: nvidia.com/gpu in pod ml/cuda-demo since 2026-12-01T11:59:00Z"));
        assertThat(results.get("uid-ok")).isInstanceOf(ClaimResult.Prepared.class);
        assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-1.json")).doesNotExist();
        assertThat(preparer.prepared()).extracting(p -> p.claim().uid()).containsExactly("uid-ok");
        assertThat(ledger.view().entries()).extracting(h -> ((AllocationLedger.Hold.DraHold) h).claim().uid())
                .containsExactly("uid-ok");
    }

    @Test
    void aDevicePreparedForOneClaimIsRefusedToAnotherUntilTheFirstIsUnpreparedButAdminAccessPasses() {
        allocate("uid-a", gpu("gpu", "gpu-0"));
        allocate("uid-b", gpu("gpu", "gpu-0"));
        allocate("uid-admin", new AllocatedDevice("gpu", DraNames.DRIVER, NODE, "gpu-0", true));
        ClaimPreparer preparer = preparer();
        assertThat(preparer.prepare(List.of(ref("uid-a"))).get("uid-a")).isInstanceOf(ClaimResult.Prepared.class);

        Map<String, ClaimResult> second = preparer.prepare(List.of(ref("uid-b"), ref("uid-a"), ref("uid-admin")));

        assertThat(second.get("uid-b")).isEqualTo(new ClaimResult.Failed("requested device gpu-0 is already allocated to"
                + " different claim uid-a (ml/claim-uid-a, device gpu-0, prepared 2026-12-01T12:00:00Z)"));
        assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-b.json")).as("nothing written for it").doesNotExist();
        assertThat(second.get("uid-a")).as("the holder, asked again").isInstanceOf(ClaimResult.Prepared.class);
        assertThat(second.get("uid-admin")).as("admin access neither blocks nor is blocked")
                .isInstanceOf(ClaimResult.Prepared.class);
        assertThat(preparer.prepared()).extracting(p -> p.claim().uid()).containsExactlyInAnyOrder("uid-a", "uid-admin");

        preparer.unprepare(List.of(ref("uid-a")));

        assertThat(preparer.prepare(List.of(ref("uid-b"))).get("uid-b")).as("once the first claim let go")
                .isInstanceOf(ClaimResult.Prepared.class);
    }

    @Test
    void aClaimWhoseConfigIsBadOrAsksForSharingKgpuCannotApplyFailsAloneAndTimeSlicingDefaultIsPrepared() {
        java.util.function.Function<String, dev.kgpu.plugin.dra.config.ClaimConfig> config = sharing ->
                new dev.kgpu.plugin.dra.config.ClaimConfig("FromClaim", List.of(), Optional.of(DraNames.DRIVER),
                        Optional.of("{\"apiVersion\":\"resource.nvidia.com/v1beta1\",\"kind\":\"GpuConfig\",\"sharing\":" + sharing + "}"));
        allocations.put("uid-default", new ClaimAllocation.Allocated(List.of(gpu("gpu", "gpu-0")),
                List.of(config.apply("{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Default\"}}"))));
        allocations.put("uid-long", new ClaimAllocation.Allocated(List.of(gpu("gpu", "gpu-1")),
                List.of(config.apply("{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Long\"}}"))));
        allocations.put("uid-mps", new ClaimAllocation.Allocated(List.of(gpu("gpu", "gpu-1")),
                List.of(config.apply("{\"strategy\":\"MPS\"}"))));
        allocations.put("uid-bad", new ClaimAllocation.Allocated(List.of(gpu("gpu", "gpu-1")),
                List.of(config.apply("{\"strategy\":\"Spatial\"}"))));

        Map<String, ClaimResult> results = preparer().prepare(List.of(ref("uid-default"), ref("uid-long"), ref("uid-mps"),
                ref("uid-bad")));

        assertThat(results.get("uid-default")).isInstanceOf(ClaimResult.Prepared.class);
        assertThat(results.get("uid-long")).isEqualTo(new ClaimResult.Failed("time-slice interval Long cannot be applied to"
                + " device gpu-1: NVML has no setter for it and kgpu does not run nvidia-smi; only interval Default can be applied"));
        assertThat(results.get("uid-mps")).isInstanceOfSatisfying(ClaimResult.Failed.class, failed -> assertThat(failed.error())
                .startsWith("sharing strategy MPS cannot be applied to gpu-1 (").endsWith("): this driver runs no MPS control daemons"));
        assertThat(results.get("uid-bad")).isEqualTo(new ClaimResult.Failed("error validating GPU config: unknown GPU sharing"
                + " strategy: Spatial, supported GPU sharing strategies: TimeSlicing, MPS"));
        assertThat(ledger.view().entries()).as("only the prepared claim holds a GPU").hasSize(1);
        assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-long.json")).doesNotExist();
    }

    @Test
    void aTimeSlicedClaimWhoseGpuCannotBeMadeDefaultFailsAloneAndReleasesItsDevicesAndAClaimWithoutSharingIsLeftAlone() {
        Map<String, ComputeModes.Mode> modes = new ConcurrentHashMap<>(Map.of(Devices.gpu(0).uuid(), ComputeModes.Mode.PROHIBITED,
                Devices.gpu(1).uuid(), ComputeModes.Mode.PROHIBITED));
        timeSlicing = new TimeSlicing(() -> new ComputeModes() {
            @Override
            public Mode get(String gpuUuid) {
                return modes.get(gpuUuid);
            }

            @Override
            public void set(String gpuUuid, Mode mode) {
                throw new DeviceSourceException("nvmlDeviceSetComputeMode: Insufficient Permissions", null);
            }
        }, uuid -> Optional.empty());
        allocations.put("uid-sliced", new ClaimAllocation.Allocated(List.of(gpu("gpu", "gpu-0")), List.of(
                new dev.kgpu.plugin.dra.config.ClaimConfig("FromClaim", List.of(), Optional.of(DraNames.DRIVER),
                        Optional.of("{\"apiVersion\":\"resource.nvidia.com/v1beta1\",\"kind\":\"GpuConfig\",\"sharing\":"
                                + "{\"strategy\":\"TimeSlicing\"}}")))));
        allocate("uid-plain", gpu("gpu", "gpu-1"));

        Map<String, ClaimResult> results = preparer().prepare(List.of(ref("uid-sliced"), ref("uid-plain")));

        assertThat(results.get("uid-sliced")).isEqualTo(new ClaimResult.Failed("sharing strategy TimeSlicing cannot be"
                + " applied to GPU gpu-0 (" + Devices.gpu(0).uuid() + "): it has compute mode PROHIBITED, time-slicing needs"
                + " DEFAULT, and NVML refused to set it: nvmlDeviceSetComputeMode: Insufficient Permissions"));
        assertThat(results.get("uid-plain")).isInstanceOf(ClaimResult.Prepared.class);
        assertThat(ledger.view().entries()).extracting(h -> h.unit().uuid()).containsExactly(Devices.gpu(1).uuid());
        assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-sliced.json")).doesNotExist();
    }

    @Test
    void aClaimWhoseSpecCannotBeWrittenReleasesItsDevices() throws Exception {
        Files.writeString(dir.resolve("cdi"), "a file where the CDI folder should be");
        allocate("uid-1", gpu("gpu", "gpu-0"));

        ClaimResult result = preparer().prepare(List.of(ref("uid-1"))).get("uid-1");

        assertThat(result).isInstanceOfSatisfying(ClaimResult.Failed.class,
                failed -> assertThat(failed.error()).startsWith("could not write the claim's CDI spec in "));
        assertThat(ledger.view().entries()).isEmpty();
        assertThat(ClaimCheckpoint.open(dir.resolve("kgpu-checkpoint.json"), "boot").claims())
                .as("the checkpoint, written beside the spec, forgot the claim again").isEmpty();
    }

    @Test
    void aClaimWhoseCheckpointCannotBeWrittenLeavesNoSpecAndReleasesItsDevices() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("driver-state"));
        ClaimPreparer preparer = preparer(folder.resolve("kgpu-checkpoint.json"));
        Files.delete(folder);
        Files.writeString(folder, "a file where the checkpoint's folder should be");
        allocate("uid-1", gpu("gpu", "gpu-0"));

        ClaimResult result = preparer.prepare(List.of(ref("uid-1"))).get("uid-1");

        assertThat(result).isInstanceOfSatisfying(ClaimResult.Failed.class,
                failed -> assertThat(failed.error()).startsWith("checkpoint " + folder.resolve("kgpu-checkpoint.json")
                        + " could not be written: "));
        assertThat(ledger.view().entries()).isEmpty();
        assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-1.json")).as("the spec, written beside it, removed again")
                .doesNotExist();
        assertThat(preparer.prepared()).isEmpty();
    }
}
