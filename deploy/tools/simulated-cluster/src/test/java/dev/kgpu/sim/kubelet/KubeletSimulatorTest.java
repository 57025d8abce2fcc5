package dev.kgpu.sim.kubelet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The simulator behaves like the kubelet's device manager, checked with a scripted plugin. */
class KubeletSimulatorTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;
    KubeletSimulator kubelet;
    ScriptedDevicePlugin plugin;

    @BeforeEach
    void start() throws Exception {
        kubelet = KubeletSimulator.start(dir, Duration.ofMillis(500));
        plugin = new ScriptedDevicePlugin(dir.resolve("scripted.sock"), List.of("a", "b", "c")).serve();
    }

    @AfterEach
    void stop() {
        plugin.close();
        kubelet.close();
    }

    @Test
    void acceptedRegistrationOpensListAndWatchAndPublishesCapacity() {
        plugin.register(kubelet.socket(), "v1beta1", "example.com/widget");

        ResourceState state = kubelet.awaitResource("example.com/widget", r -> r.capacity() == 3, WAIT);
        assertThat(state.connected()).isTrue();
        assertThat(state.preferredAllocationAvailable()).isTrue();
        assertThat(state.endpoint()).isEqualTo("scripted.sock");
        assertThat(kubelet.capacity()).containsEntry("example.com/widget", 3L);
        assertThat(kubelet.allocatable()).containsEntry("example.com/widget", 3L);
        assertThat(kubelet.registrations()).singleElement().satisfies(e -> assertThat(e.accepted()).isTrue());
    }

    @Test
    void everyMessageIsTheWholeListAndUnhealthyLowersOnlyAllocatable() {
        plugin.register(kubelet.socket(), "v1beta1", "example.com/widget");
        kubelet.awaitResource("example.com/widget", r -> r.capacity() == 3, WAIT);

        plugin.setDevices(List.of(ScriptedDevicePlugin.device("a", false), ScriptedDevicePlugin.device("b", true)));

        ResourceState state = kubelet.awaitResource("example.com/widget", r -> r.capacity() == 2, WAIT);
        assertThat(state.allocatable()).isEqualTo(1);
        assertThat(state.unhealthyIds()).containsExactly("a");
    }

    @Test
    void theDeviceManagerCheckpointListsEachAdmissionAndKeepsAReleasedPodUntilTheNextWrite() throws Exception {
        plugin.register(kubelet.socket(), "v1beta1", "example.com/widget");
        kubelet.awaitResource("example.com/widget", r -> r.capacity() == 3, WAIT);
        kubelet.await(() -> Files.exists(kubelet.checkpoint()), WAIT, "the checkpoint, written after the device list");
        assertThat(kubelet.checkpoint()).isEqualTo(dir.resolve("kubelet_internal_checkpoint"));
        JsonNode none = checkpoint();
        assertThat(none.at("/Data/PodDeviceEntries").isNull()).as("a nil slice, as Go writes it").isTrue();
        assertThat(none.at("/Data/RegisteredDevices/example.com~1widget").toString()).isEqualTo("[\"a\",\"b\",\"c\"]");

        PodAllocation one = ((PodAdmission.Admitted) kubelet.admit(PodSpec.of("one", "example.com/widget", 1))).allocation();

        JsonNode entry = checkpoint().at("/Data/PodDeviceEntries/0");
        assertThat(entry.get("PodUID").asText()).isEqualTo(DeviceManagerCheckpoint.podUid("one"));
        assertThat(entry.get("ContainerName").asText()).isEqualTo(one.container().name());
        assertThat(entry.get("ResourceName").asText()).isEqualTo("example.com/widget");
        assertThat(entry.get("DeviceIDs").toString()).as("no topology: NUMA node -1")
                .isEqualTo("{\"-1\":[\"" + one.deviceIds("example.com/widget").getFirst() + "\"]}");
        assertThat(entry.get("AllocResp").isTextual()).isTrue();
        assertThat(checkpoint().get("Checksum").asLong()).isZero();

        kubelet.release("one");
        assertThat(checkpoint().at("/Data/PodDeviceEntries").size()).as("kept until the kubelet writes again").isOne();

        kubelet.admit(PodSpec.of("two", "example.com/widget", 1));
        assertThat(checkpoint().at("/Data/PodDeviceEntries")).singleElement().satisfies(e -> assertThat(
                e.get("PodUID").asText()).isEqualTo(DeviceManagerCheckpoint.podUid("two")));
    }

    JsonNode checkpoint() throws java.io.IOException {
        return new ObjectMapper().readTree(Files.readString(kubelet.checkpoint()));
    }

    @Test
    void streamEndMarksEveryDeviceUnhealthy() {
        plugin.register(kubelet.socket(), "v1beta1", "example.com/widget");
        kubelet.awaitResource("example.com/widget", r -> r.capacity() == 3, WAIT);

        plugin.endStreams();

        ResourceState state = kubelet.awaitResource("example.com/widget", r -> !r.connected(), WAIT);
        assertThat(state.capacity()).isEqualTo(3);
        assertThat(state.allocatable()).isZero();
    }

    @Test
    void wrongVersionIsRejectedFirst() {
        assertThatThrownBy(() -> plugin.register(kubelet.socket(), "v1alpha", "kubernetes.io/bad"))
                .isInstanceOf(StatusRuntimeException.class)
                .hasMessageContaining("requested API version \"v1alpha\" is not supported by kubelet");
    }

    @Test
    void invalidResourceNameIsRejected() {
        assertThatThrownBy(() -> plugin.register(kubelet.socket(), "v1beta1", "kubernetes.io/gpu"))
                .isInstanceOf(StatusRuntimeException.class)
                .hasMessageContaining("the ResourceName \"kubernetes.io/gpu\" is invalid");
        assertThat(kubelet.resources()).isEmpty();
    }

    @Test
    void endpointThatCannotBeDialedIsRejected() throws Exception {
        plugin.stopServing();
        assertThatThrownBy(() -> plugin.register(kubelet.socket(), "v1beta1", "example.com/widget"))
                .isInstanceOf(StatusRuntimeException.class)
                .hasMessageContaining("failed to dial device plugin");
        assertThat(kubelet.registrations()).singleElement().satisfies(e -> assertThat(e.accepted()).isFalse());
    }

    @Test
    void admissionUsesThePreferenceAndLeavesAPodPendingWhenFull() {
        plugin.register(kubelet.socket(), "v1beta1", "example.com/widget");
        kubelet.awaitResource("example.com/widget", r -> r.capacity() == 3, WAIT);

        PodAdmission first = kubelet.admit(PodSpec.of("first", "example.com/widget", 2));
        assertThat(first).isInstanceOfSatisfying(PodAdmission.Admitted.class, a -> {
            assertThat(a.allocation().deviceIds("example.com/widget")).containsExactly("c", "b");
            assertThat(a.allocation().container().envs()).containsEntry("SCRIPTED_DEVICES", "c,b");
        });
        assertThat(plugin.preferredRequests).singleElement().satisfies(r -> {
            assertThat(r.getContainerRequestsCount()).isEqualTo(1);
            assertThat(r.getContainerRequests(0).getAvailableDeviceIDsList()).containsExactly("a", "b", "c");
        });

        PodAdmission second = kubelet.admit(PodSpec.of("second", "example.com/widget", 2));
        assertThat(second).isEqualTo(new PodAdmission.Pending("second", "Insufficient example.com/widget"));

        kubelet.release("first");
        assertThat(kubelet.admit(PodSpec.of("second", "example.com/widget", 2))).isInstanceOf(PodAdmission.Admitted.class);
        assertThat(plugin.allocations).hasSize(2);
    }

    @Test
    void unregisteredResourceLeavesThePodPending() {
        assertThat(kubelet.admit(PodSpec.of("p", "nvidia.com/gpu", 1)))
                .isEqualTo(new PodAdmission.Pending("p", "Insufficient nvidia.com/gpu"));
    }

    @Test
    void restartDeletesEverySocketAndRecreatesKubeletSock() throws Exception {
        plugin.register(kubelet.socket(), "v1beta1", "example.com/widget");
        kubelet.awaitResource("example.com/widget", r -> r.capacity() == 3, WAIT);
        Files.writeString(dir.resolve("kubelet_internal_checkpoint"), "{}");

        kubelet.restart();

        assertThat(dir.resolve("scripted.sock")).doesNotExist();
        assertThat(dir.resolve("kubelet_internal_checkpoint")).exists();
        assertThat(kubelet.socket()).exists();
        ResourceState state = kubelet.resource("example.com/widget").orElseThrow();
        assertThat(state.capacity()).isZero();
        assertThat(state.connected()).isFalse();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "nvidia.com/gpu, true",
            "nvidia.com/mig-1g.10gb, true",
            "nvidia.com/gpu.shared, true",
            "gpu, false",
            "kubernetes.io/gpu, false",
            "example.kubernetes.io/gpu, false",
            "requests.nvidia.com/gpu, false",
            "nvidia.com/, false",
            "nvidia.com/a/b, false",
            "Nvidia.com/gpu, false",
            "nvidia.com/-gpu, false",
    })
    void extendedResourceNames(String name, boolean valid) {
        assertThat(ResourceNames.isExtendedResourceName(name)).isEqualTo(valid);
    }
}
