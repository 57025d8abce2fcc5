package dev.kgpu.chart;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plain manifests (deploy/release/kubernetes), each applied on its own as NVIDIA's deployments are swapped in place:
 * the same checks as the chart's renders (schemas with no unknown field, the API server's rules, kgpu's pod
 * hardening), with the privileges, root and writable host paths each one needs.
 */
class KubernetesManifestsTest {

    static final Path MANIFESTS = Path.of(System.getProperty("kgpu.root"), "deploy/release/kubernetes");

    record Manifest(String file, Set<String> privileged, Set<String> writable, Set<String> nonRoot) {
        @Override
        public String toString() {
            return file;
        }
    }

    static Stream<Manifest> manifests() {
        return Stream.of(
                new Manifest("plugin.yaml", Set.of(), Set.of("kgpu-plugin/plugin:/var/lib/kubelet/device-plugins"), Set.of()),
                new Manifest("discovery.yaml", Set.of(), Set.of(), Set.of("kgpu-discovery/discovery")),
                new Manifest("exporter.yaml", Set.of(), Set.of(), Set.of()),
                new Manifest("validator.yaml", Set.of("nvidia-operator-validator/driver-validation"), Set.of(
                        "nvidia-operator-validator/driver-validation:/run/nvidia/validations",
                        "nvidia-operator-validator/toolkit-validation:/run/nvidia/validations",
                        "nvidia-operator-validator/plugin-validation:/run/nvidia/validations",
                        "nvidia-operator-validator/cuda-validation:/run/nvidia/validations",
                        "nvidia-operator-validator/nvidia-operator-validator:/run/nvidia/validations"), Set.of()));
    }

    @Test
    void everyManifestIsTested() throws IOException {
        try (Stream<Path> files = Files.list(MANIFESTS)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .containsExactlyInAnyOrderElementsOf(manifests().map(Manifest::file).toList());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("manifests")
    void holdsObjectsTheApiServerAccepts(Manifest manifest) throws IOException {
        List<HasMetadata> objects = read(manifest.file());

        assertThat(Manifests.problems(objects, new Hardening(manifest.privileged(), manifest.writable(), manifest.nonRoot())))
                .as(manifest.file()).isEmpty();
    }

    @Test
    void grantsDiscoveryNodePatchesAndNodeFeaturesInItsNamespaceOnly() throws IOException {
        List<HasMetadata> objects = read("discovery.yaml");
        assertThat(objects).filteredOn(ClusterRole.class::isInstance).singleElement()
                .extracting(o -> ((ClusterRole) o).getRules().stream().map(r -> r.getResources() + " " + r.getVerbs()).toList())
                .isEqualTo(List.of("[nodes] [get, patch]"));
        assertThat(objects).filteredOn(Role.class::isInstance).singleElement()
                .extracting(o -> ((Role) o).getRules().stream().map(r -> r.getResources() + " " + r.getVerbs()).toList())
                .isEqualTo(List.of("[nodefeatures] [get, create, patch]", "[pods] [get]"));
    }

    @Test
    void namesTheImagesOfThisVersion() throws IOException {
        for (Manifest manifest : manifests().toList()) {
            for (HasMetadata object : read(manifest.file())) {
                if (object instanceof io.fabric8.kubernetes.api.model.apps.DaemonSet daemonSet) {
                    var pod = daemonSet.getSpec().getTemplate().getSpec();
                    Stream.concat(pod.getInitContainers().stream(), pod.getContainers().stream()).forEach(c ->
                            assertThat(c.getImage()).as(manifest.file()).matches("ghcr\\.io/kgpu/[a-z]+:"
                                    + java.util.regex.Pattern.quote(System.getProperty("kgpu.version"))));
                }
            }
        }
    }

    @Test
    void waitsNeitherForAShellNorWithOne() throws IOException {
        for (Manifest manifest : manifests().toList()) {
            assertThat(Files.readString(MANIFESTS.resolve(manifest.file()), StandardCharsets.UTF_8))
                    .as(manifest.file()).doesNotContain("\"sh\"").doesNotContain("sleep ");
        }
    }

    private static List<HasMetadata> read(String file) throws IOException {
        return Manifests.read(Files.readString(MANIFESTS.resolve(file), StandardCharsets.UTF_8), "deploy/release/kubernetes/" + file);
    }
}
