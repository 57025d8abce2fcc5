package dev.kgpu.plugin.dra;

import dev.kgpu.plugin.node.AllocationLedger.KubeletAllocations;
import dev.kgpu.plugin.node.AllocationLedger.KubeletAllocations.Allocation;
import dev.kgpu.plugin.node.AllocationLedger.KubeletAllocations.Pod;
import dev.kgpu.plugin.node.AllocationLedger.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The kubelet's device-manager checkpoint, in the shapes kubelets write it, and the one line a bad one gets. */
class KubeletDeviceCheckpointTest {

    static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");
    static final Instant WRITTEN = NOW.minusSeconds(30);
    static final String GPU_0 = "GPU-0e3e6a4c-5d2b-4a5f-9f1c-000000000000";
    static final String GPU_1 = "GPU-0e3e6a4c-5d2b-4a5f-9f1c-000000000001";

    @TempDir
    Path dir;

    Path write(String json) throws IOException {
        Path file = dir.resolve(KubeletDeviceCheckpoint.FILE_NAME);
        Files.writeString(file, json);
        Files.setLastModifiedTime(file, FileTime.from(WRITTEN));
        return file;
    }

    @Test
    void aCheckpointOfKubelet120AndLaterListsEachContainersDevicesOverItsNumaNodes() throws IOException {
        Path file = write("""
                {"Data":{"PodDeviceEntries":[
                  {"PodUID":"5e1c0000-0000-0000-0000-000000000001","ContainerName":"main","ResourceName":"nvidia.com/gpu",
                   "DeviceIDs":{"0":["%s::2"],"1":["%s"]},"AllocResp":"EgQKAggB"},
                  {"PodUID":"5e1c0000-0000-0000-0000-000000000002","ContainerName":"side","ResourceName":"example.com/nic",
                   "DeviceIDs":{"-1":["nic-0"],"2":null},"AllocResp":null}],
                 "RegisteredDevices":{"nvidia.com/gpu":["%s::2","%s"]}},
                 "Checksum":2876522531,"BootID":"b1"}
                """.formatted(GPU_0, GPU_1, GPU_0, GPU_1));

        KubeletAllocations read = new KubeletDeviceCheckpoint(file).read(NOW);

        assertThat(read.source()).isEqualTo(Source.KUBELET_CHECKPOINT);
        assertThat(read.listedAt()).as("as of when the kubelet wrote it").isEqualTo(WRITTEN);
        assertThat(read.allocations()).containsExactly(
                new Allocation("nvidia.com/gpu", List.of(GPU_0 + "::2", GPU_1),
                        new Pod("", "", "5e1c0000-0000-0000-0000-000000000001"), "main"),
                new Allocation("example.com/nic", List.of("nic-0"),
                        new Pod("", "", "5e1c0000-0000-0000-0000-000000000002"), "side"));
        assertThat(read.allocations().getFirst().pod()).hasToString("with UID 5e1c0000-0000-0000-0000-000000000001");
    }

    @Test
    void aCheckpointOfAnOlderKubeletListsTheDeviceIdsPlainly() throws IOException {
        Path file = write("""
                {"Data":{"PodDeviceEntries":[{"PodUID":"uid-1","ContainerName":"main","ResourceName":"nvidia.com/gpu",
                  "DeviceIDs":["%s","%s"],"AllocResp":""}],"RegisteredDevices":{}},"Checksum":1}
                """.formatted(GPU_0, GPU_1));

        assertThat(new KubeletDeviceCheckpoint(file).read(NOW).allocations()).containsExactly(
                new Allocation("nvidia.com/gpu", List.of(GPU_0, GPU_1), new Pod("", "", "uid-1"), "main"));
    }

    @Test
    void noPodsIsANullListAsGoWritesIt() throws IOException {
        Path file = write("{\"Data\":{\"PodDeviceEntries\":null,\"RegisteredDevices\":null},\"Checksum\":0}");

        assertThat(new KubeletDeviceCheckpoint(file).read(NOW).allocations()).isEmpty();
    }

    @Test
    void aFileWrittenAfterNowCountsAsOfNow() throws IOException {
        Path file = write("{\"Data\":{\"PodDeviceEntries\":[]}}");
        Files.setLastModifiedTime(file, FileTime.from(NOW.plusSeconds(60)));

        assertThat(new KubeletDeviceCheckpoint(file).read(NOW).listedAt()).isEqualTo(NOW);
    }

    record Malformed(String description, String json, String line) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Malformed> malformed() {
        String entry = "{\"PodUID\":\"uid-1\",\"ContainerName\":\"main\",\"ResourceName\":\"nvidia.com/gpu\",\"DeviceIDs\":%s}";
        return Stream.of(
                new Malformed("not JSON", "{\"Data\":", "the file was '{\"Data\":' but it must be JSON"),
                new Malformed("no Data", "{\"Checksum\":1}", "Data was '' but it must be an object"),
                new Malformed("entries not a list", "{\"Data\":{\"PodDeviceEntries\":{}}}",
                        "Data.PodDeviceEntries was '{}' but it must be a list"),
                new Malformed("a number for DeviceIDs", "{\"Data\":{\"PodDeviceEntries\":[" + entry.formatted("7") + "]}}",
                        "Data.PodDeviceEntries[0].DeviceIDs was '7' but it must map NUMA nodes to device IDs, or list device IDs"),
                new Malformed("a NUMA node that is no number",
                        "{\"Data\":{\"PodDeviceEntries\":[" + entry.formatted("{\"zero\":[\"GPU-1\"]}") + "]}}",
                        "Data.PodDeviceEntries[0].DeviceIDs was 'zero' but it must map NUMA node numbers to device IDs"),
                new Malformed("an ID that is no string",
                        "{\"Data\":{\"PodDeviceEntries\":[" + entry.formatted("{\"0\":[\"GPU-1\",5]}") + "]}}",
                        "Data.PodDeviceEntries[0].DeviceIDs.0[1] was '5' but it must be a device ID"),
                new Malformed("no resource name", "{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"uid-1\","
                        + "\"ContainerName\":\"main\",\"DeviceIDs\":[]}]}}",
                        "Data.PodDeviceEntries[0].ResourceName was '' but it must be a non-empty string"));
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void aMalformedFileIsOneLineNamingTheFileAndTheField(Malformed bad) throws IOException {
        Path file = write(bad.json());

        assertThatThrownBy(() -> new KubeletDeviceCheckpoint(file).read(NOW)).isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n")
                        .startsWith("the kubelet's device-manager checkpoint " + file + " is malformed: " + bad.line()));
    }

    @Test
    void aMissingFileIsOneLine() {
        Path file = dir.resolve("device-plugins").resolve(KubeletDeviceCheckpoint.FILE_NAME);

        assertThatThrownBy(() -> new KubeletDeviceCheckpoint(file).read(NOW)).isInstanceOf(IOException.class)
                .hasMessage("the kubelet's device-manager checkpoint " + file + " is not there");
    }
}
