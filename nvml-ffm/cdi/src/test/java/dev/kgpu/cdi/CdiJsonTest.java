package dev.kgpu.cdi;

import dev.kgpu.cdi.NvidiaCdiGenerator.NameStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CdiJsonTest {

    @TempDir
    Path root;

    @Test
    void writesWhatGosJsonMarshalWritesForTheSameSpec() {
        CdiSpec spec = new CdiSpec("0.5.0", "k8s.device-plugin.nvidia.com/gpu", Map.of(),
                List.of(new CdiSpec.Device("GPU-1", new CdiSpec.ContainerEdits(List.of(),
                        List.of(CdiSpec.DeviceNode.of("/dev/nvidia0", "/run/nvidia/driver/dev/nvidia0")), List.of(), List.of()))),
                new CdiSpec.ContainerEdits(List.of("A=<b>&c"), List.of(), List.of(),
                        List.of(new CdiSpec.Mount("/h/lib", "/lib", List.of("ro", "rbind")))));

        assertThat(CdiJson.write(spec)).isEqualTo("{\"cdiVersion\":\"0.5.0\",\"kind\":\"k8s.device-plugin.nvidia.com/gpu\","
                + "\"devices\":[{\"name\":\"GPU-1\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/nvidia0\","
                + "\"hostPath\":\"/run/nvidia/driver/dev/nvidia0\"}]}}],\"containerEdits\":{\"env\":[\"A=\\u003cb\\u003e\\u0026c\"],"
                + "\"mounts\":[{\"hostPath\":\"/h/lib\",\"containerPath\":\"/lib\",\"options\":[\"ro\",\"rbind\"]}]}}");
    }

    @Test
    void aGeneratedSpecReadsBackAsTheSameSpec() {
        CdiTestNodes.Node node = CdiTestNodes.simulated("mig-mixed", root);
        CdiSpec spec = NvidiaCdiGenerator.generate(CdiTestNodes.options(root, NameStrategy.UUID), node.driverVersion(), node.gpus());

        assertThat(CdiJson.parse(CdiJson.write(spec), "spec.json")).isEqualTo(spec);
    }

    @Test
    void readsYamlAsNvidiaCtkWritesIt() {
        String yaml = CdiTestNodes.resource("nvidia-ctk-generate/default.yaml").replace("{{ .driverRoot }}", "/driver-root");

        CdiSpec spec = CdiJson.parse(yaml, "default.yaml");

        assertThat(spec.kind()).isEqualTo("example.com/device");
        assertThat(spec.devices()).extracting(CdiSpec.Device::name).containsExactly("0", "all");
        assertThat(spec.containerEdits().hooks()).hasSize(5);
    }

    @Test
    void rejectsWhatTheCdiLibraryRejectsWithOneLineNamingFieldAndValue() {
        assertThatThrownBy(() -> CdiJson.parse("{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.com/b\",\"devices\":[{\"name\":\"x\","
                + "\"containerEdits\":{\"env\":[\"A=1\"],\"devicenodes\":[]}}]}", "/etc/cdi/x.json"))
                .hasMessage("/etc/cdi/x.json: devices[0].containerEdits.devicenodes was present but it is no field of a CDI"
                        + " spec (unknown field \"devicenodes\")");
        assertThatThrownBy(() -> CdiJson.parse("{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.com/b\",\"devices\":[{\"name\":\"x\","
                + "\"containerEdits\":{}}]}", "f"))
                .hasMessage("f: devices[x].containerEdits was '{}' but it must not be empty (invalid device, empty device edits)");
        assertThatThrownBy(() -> CdiJson.parse("{\"cdiVersion\":\"0.5.0\",\"kind\":\"nvidia.com\",\"devices\":[]}", "f"))
                .hasMessageStartingWith("f: kind was 'nvidia.com' but it must be vendor/class");
        assertThatThrownBy(() -> CdiJson.parse("{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.com/b\",\"devices\":[{\"name\":\"-x\","
                + "\"containerEdits\":{\"env\":[\"A=1\"]}}]}", "f"))
                .hasMessageStartingWith("f: devices[].name was '-x' but it must start and end with a letter or digit");
        assertThatThrownBy(() -> CdiJson.parse("devices: [", "f")).hasMessageStartingWith("f: not a CDI spec");
    }

    @Test
    void theDeclaredVersionMustCoverTheContent() {
        CdiSpec spec = new CdiSpec("0.3.0", "a.com/b", Map.of(), List.of(new CdiSpec.Device("0",
                new CdiSpec.ContainerEdits(List.of("A=1"), List.of(), List.of(), List.of()))), CdiSpec.ContainerEdits.EMPTY);

        assertThat(CdiVersion.minimumFor(spec)).as("a name starting with a digit").isEqualTo("0.5.0");
        assertThatThrownBy(() -> CdiVersion.requireValid(spec))
                .hasMessage("cdiVersion was '0.3.0' but the spec's content needs at least 0.5.0 (the spec version must be at least v0.5.0)");
        assertThatThrownBy(() -> CdiVersion.requireValid(new CdiSpec("0.9.0", "a.com/b", Map.of(), spec.devices(), spec.containerEdits())))
                .hasMessageStartingWith("cdiVersion was '0.9.0' but it is no CDI version");
        CdiVersion.requireValid(spec.withMinimumVersion());
    }

    @Test
    void qualifiedNamesSplitAsCdisParserSplitsThem() {
        assertThat(CdiNames.parse("k8s.device-plugin.nvidia.com/gpu=MIG-1")).isEqualTo(
                new CdiNames.Qualified("k8s.device-plugin.nvidia.com", "gpu", "MIG-1"));
        assertThat(CdiNames.parse("nvidia.com/gpu=0:1").name()).isEqualTo("0:1");
        assertThat(CdiNames.isQualified("/dev/nvidia0")).isFalse();
        assertThat(CdiNames.isQualified("nvidia.com/gpu")).isFalse();
        assertThat(CdiNames.specFileName("k8s.device-plugin.nvidia.com/gpu", ".json")).isEqualTo("k8s.device-plugin.nvidia.com-gpu.json");
    }
}
