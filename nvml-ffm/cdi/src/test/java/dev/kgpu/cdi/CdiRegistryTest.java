package dev.kgpu.cdi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CdiRegistryTest {

    @TempDir
    Path dir;

    private static CdiSpec spec(String kind, String env, Map<String, String> deviceEnv) {
        return new CdiSpec("0.5.0", kind, Map.of(), deviceEnv.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> new CdiSpec.Device(e.getKey(), new CdiSpec.ContainerEdits(List.of(e.getValue()), List.of(), List.of(), List.of())))
                .toList(), new CdiSpec.ContainerEdits(List.of(env), List.of(), List.of(), List.of()));
    }

    @Test
    void resolvesSpecEditsOncePerSpecThenEachDevicesInTheOrderAsked() {
        CdiSpecWriter writer = new CdiSpecWriter(dir.resolve("run"));
        writer.write(spec("vendor.com/gpu", "SPEC=gpu", Map.of("0", "DEV=0", "1", "DEV=1")));
        writer.write(spec("vendor.com/net", "SPEC=net", Map.of("a", "DEV=a")));

        CdiRegistry registry = CdiRegistry.load(List.of(dir.resolve("etc"), dir.resolve("run")));

        assertThat(registry.errors()).isEmpty();
        assertThat(registry.deviceNames()).containsExactlyInAnyOrder("vendor.com/gpu=0", "vendor.com/gpu=1", "vendor.com/net=a");
        assertThat(registry.resolve(List.of("vendor.com/gpu=1", "vendor.com/net=a", "vendor.com/gpu=0")).env())
                .containsExactly("SPEC=gpu", "DEV=1", "SPEC=net", "DEV=a", "DEV=0");
    }

    @Test
    void anUnresolvableNameFailsTheWholeRequestInTheRuntimesWords() {
        new CdiSpecWriter(dir).write(spec("vendor.com/gpu", "S=1", Map.of("0", "D=0")));
        CdiRegistry registry = CdiRegistry.load(List.of(dir));

        assertThatThrownBy(() -> registry.resolve(List.of("vendor.com/gpu=0", "vendor.com/gpu=7", "other.com/x=y")))
                .isInstanceOf(CdiException.class)
                .hasMessage("unresolvable CDI devices vendor.com/gpu=7, other.com/x=y");
    }

    @Test
    void aLaterDirectoryWinsAndTwoSpecsOfOneDirectoryConflict() throws IOException {
        new CdiSpecWriter(dir.resolve("etc")).write(spec("vendor.com/gpu", "FROM=etc", Map.of("0", "D=etc")));
        new CdiSpecWriter(dir.resolve("run")).write(spec("vendor.com/gpu", "FROM=run", Map.of("0", "D=run")));
        Files.writeString(dir.resolve("run/second.json"), CdiJson.write(spec("vendor.com/gpu", "X=1", Map.of("1", "D=1"))));
        Files.writeString(dir.resolve("run/third.yaml"), "cdiVersion: 0.5.0\nkind: vendor.com/gpu\ndevices:\n"
                + "- name: \"1\"\n  containerEdits:\n    env: [D=dup]\n");
        Files.writeString(dir.resolve("run/broken.json"), "{\"cdiVersion\":");
        Files.writeString(dir.resolve("run/ignored.txt"), "not a spec");

        CdiRegistry registry = CdiRegistry.load(List.of(dir.resolve("etc"), dir.resolve("run")));

        assertThat(registry.resolve(List.of("vendor.com/gpu=0")).env()).containsExactly("FROM=run", "D=run");
        assertThat(registry.device("vendor.com/gpu=1")).as("conflicting within one directory").isEmpty();
        assertThat(registry.errors().keySet()).containsExactlyInAnyOrder(dir.resolve("run/second.json"),
                dir.resolve("run/third.yaml"), dir.resolve("run/broken.json"));
        assertThat(registry.errors().get(dir.resolve("run/third.yaml"))).contains("conflicting device \"vendor.com/gpu=1\"");
        assertThat(registry.errors().get(dir.resolve("run/broken.json"))).startsWith(dir.resolve("run/broken.json") + ": not a CDI spec");
    }

    @Test
    void theWriterReplacesAtomicallyAndRemoves() throws IOException {
        CdiSpecWriter writer = new CdiSpecWriter(dir.resolve("cdi"));
        Path file = writer.write(spec("k8s.device-plugin.nvidia.com/gpu", "V=1", Map.of("0", "D=0")));
        writer.write(spec("k8s.device-plugin.nvidia.com/gpu", "V=2", Map.of("0", "D=0")));

        assertThat(file).isEqualTo(dir.resolve("cdi/k8s.device-plugin.nvidia.com-gpu.json"));
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        try (Stream<Path> files = Files.list(dir.resolve("cdi"))) {
            assertThat(files).as("no temporary file left").containsExactly(file);
        }
        assertThat(CdiRegistry.load(List.of(dir.resolve("cdi"))).resolve(List.of("k8s.device-plugin.nvidia.com/gpu=0")).env())
                .containsExactly("V=2", "D=0");
        assertThatThrownBy(() -> writer.write(new CdiSpec("0.3.0", "a.com/b", Map.of(), spec("a.com/b", "A=1", Map.of("0", "D")).devices(),
                CdiSpec.ContainerEdits.EMPTY))).hasMessageStartingWith("cdiVersion was '0.3.0'");
        assertThat(writer.remove("k8s.device-plugin.nvidia.com/gpu")).isTrue();
        assertThat(writer.remove("k8s.device-plugin.nvidia.com/gpu")).isFalse();
        assertThat(file).doesNotExist();
    }

    @Test
    void transientSpecsAreOnePerIdAndResolveBesideEachOther() throws IOException {
        CdiSpecWriter writer = new CdiSpecWriter(dir.resolve("cdi"));
        Path first = writer.writeTransient(spec("k8s.gpu.nvidia.com/claim", "C=1", Map.of("uid-1-gpu-0", "D=0")), "uid-1");
        Path second = writer.writeTransient(spec("k8s.gpu.nvidia.com/claim", "C=2", Map.of("uid-2-gpu-1", "D=1")), "uid-2");
        Files.writeString(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-3.yaml"), "written by another driver");

        assertThat(first).isEqualTo(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-1.json"));
        assertThat(second).isEqualTo(writer.transientFileFor("k8s.gpu.nvidia.com/claim", "uid-2"));
        CdiRegistry registry = CdiRegistry.load(List.of(dir.resolve("cdi")));
        assertThat(registry.resolve(List.of("k8s.gpu.nvidia.com/claim=uid-2-gpu-1", "k8s.gpu.nvidia.com/claim=uid-1-gpu-0")).env())
                .containsExactly("C=2", "D=1", "C=1", "D=0");
        assertThat(writer.removeTransient("k8s.gpu.nvidia.com/claim", "uid-1")).isTrue();
        assertThat(writer.removeTransient("k8s.gpu.nvidia.com/claim", "uid-1")).as("idempotent").isFalse();
        assertThat(writer.removeTransient("k8s.gpu.nvidia.com/claim", "uid-3")).as("the YAML another writer left").isTrue();
        assertThat(second).exists();
        assertThatThrownBy(() -> writer.writeTransient(spec("k8s.gpu.nvidia.com/claim", "C=1", Map.of("x", "D=0")), "../x"))
                .hasMessageStartingWith("transient spec id was '../x'");
    }
}
