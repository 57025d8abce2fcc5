package dev.kgpu.validator.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kgpu.sim.prometheus.PrometheusServer;
import dev.kgpu.validator.NodeStatusExporter;
import dev.kgpu.validator.core.Component;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * gpu-operator's alert rules for its node-status exporter ({@code 0800_prometheus_rule_openshift.yaml}, as
 * shipped) evaluated by a real Prometheus (Debian's package) that scrapes kgpu's node-status exporter on three
 * nodes: one healthy, one whose toolkit and CUDA barriers are closed and whose plugin advertises no GPU, one
 * without a working driver. Every rule is loaded and healthy, every expression has data, and each alert is
 * pending (its {@code for: 30m} not yet over) on exactly the nodes it was written for. About 10 s.
 */
class GpuOperatorAlertRulesIT {

    static final ObjectMapper JSON = new ObjectMapper();

    /** Each alert and the nodes it was written for. */
    static final Map<String, Set<String>> EXPECTED = Map.of(
            "GPUOperatorNodeDeploymentFailed", Set.of("no-toolkit", "no-driver"),
            "GPUOperatorNodeDeploymentDriverFailed", Set.of("no-driver"),
            "GPUOperatorNodeDeploymentToolkitFailed", Set.of("no-toolkit"),
            "GPUOperatorNodeDeploymentCudaFailed", Set.of("no-toolkit"));

    @TempDir
    Path dir;

    @Test
    void gpuOperatorsRulesEvaluateWithDataOnKgpusExporter() throws Exception {
        Path rules = rulesFile();
        PrometheusServer.checkRules(rules);

        NodeFixture healthy = new NodeFixture(dir, "healthy").pci("0000:07:00.0", 0x10de);
        List.of(Component.DRIVER, Component.TOOLKIT, Component.PLUGIN, Component.CUDA).forEach(c -> healthy.ready(c, true));
        healthy.capacity.set(Optional.of(Map.of("nvidia.com/gpu", 8L)));
        NodeFixture noToolkit = new NodeFixture(dir, "no-toolkit").pci("0000:07:00.0", 0x10de).ready(Component.DRIVER, true);
        noToolkit.capacity.set(Optional.of(Map.of("nvidia.com/gpu", 0L)));
        NodeFixture noDriver = new NodeFixture(dir, "no-driver").pci("0000:07:00.0", 0x10de);
        noDriver.driverWorks.set(false);
        noDriver.capacity.set(Optional.of(Map.of()));

        List<NodeStatusExporter> exporters = new ArrayList<>();
        try {
            for (NodeFixture node : List.of(healthy, noToolkit, noDriver)) {
                exporters.add(NodeStatusExporter.start(node.metrics(InstantSource.system()), 0,
                        NodeStatusExporter.Periods.NVIDIA));
            }
            List<String> targets = exporters.stream().map(e -> "127.0.0.1:" + e.port()).toList();
            try (PrometheusServer prometheus = PrometheusServer.start(dir, "node-status", targets, List.of(rules))) {
                // every target scraped, every rule evaluated at least once
                prometheus.awaitQuery("count(up{job=\"node-status\"} == 1)", b -> b.contains(",\"3\"]"), Duration.ofSeconds(90));
                JsonNode group = JSON.readTree(prometheus.awaitGet("rules", body -> {
                    JsonNode g = read(body).at("/data/groups/0");
                    return g.path("rules").size() == 4 && allEvaluated(g) && everyScrapeHasBeenSeen(prometheus);
                }, Duration.ofSeconds(90))).at("/data/groups/0");
                assertThat(group.path("name").asText()).isEqualTo("Alert on node deployment failure");

                Map<String, Set<String>> firing = new TreeMap<>();
                for (JsonNode rule : group.path("rules")) {
                    assertThat(rule.path("health").asText()).as("rule %s", rule.path("name").asText()).isEqualTo("ok");
                    String expr = rule.path("query").asText();
                    firing.put(rule.path("name").asText(), nodes(read(prometheus.query(expr)).at("/data/result")));
                    for (String metric : metricsIn(expr)) {
                        assertThat(nodes(read(prometheus.query(metric)).at("/data/result")))
                                .as("%s has a series for every node", metric)
                                .containsExactlyInAnyOrder("healthy", "no-toolkit", "no-driver");
                    }
                }
                assertThat(firing).isEqualTo(new TreeMap<>(EXPECTED));
                Map<String, Set<String>> pending = new TreeMap<>();
                for (JsonNode alert : read(prometheus.get("alerts")).at("/data/alerts")) {
                    assertThat(alert.path("state").asText()).as("for: 30m has not passed").isEqualTo("pending");
                    pending.computeIfAbsent(alert.at("/labels/alertname").asText(), a -> new TreeSet<>())
                            .add(alert.at("/labels/node").asText());
                }
                assertThat(pending).isEqualTo(firing);
            }
        } finally {
            exporters.forEach(NodeStatusExporter::close);
        }
    }

    /** The PrometheusRule's {@code spec}, which is a Prometheus rule file ({@code groups:}), as JSON. */
    private Path rulesFile() throws Exception {
        Path asset = Path.of(getClass().getClassLoader().getResource(
                "conformance/gpu-operator/assets/state-node-status-exporter/0800_prometheus_rule_openshift.yaml").toURI());
        GenericKubernetesResource rule = Serialization.unmarshal(Files.readString(asset), GenericKubernetesResource.class);
        assertThat(rule.getKind()).isEqualTo("PrometheusRule");
        Path file = dir.resolve("gpu-operator-node-status-rules.json");
        Files.writeString(file, JSON.writeValueAsString(rule.getAdditionalProperties().get("spec")));
        return file;
    }

    private static boolean allEvaluated(JsonNode group) {
        for (JsonNode rule : group.path("rules")) {
            if (!rule.path("health").asText().equals("ok")) {
                return false;
            }
        }
        return true;
    }

    /** Whether the rules were evaluated after all three exporters' series arrived (one more evaluation). */
    private static boolean everyScrapeHasBeenSeen(PrometheusServer prometheus) {
        return read(prometheus.query("count(gpu_operator_node_driver_validation)")).toString().contains("\"3\"")
                && read(prometheus.get("alerts")).at("/data/alerts").size() == EXPECTED.values().stream().mapToInt(Set::size).sum();
    }

    private static Set<String> nodes(JsonNode result) {
        Set<String> nodes = new TreeSet<>();
        result.forEach(series -> nodes.add(series.at("/metric/node").asText()));
        return nodes;
    }

    private static Set<String> metricsIn(String expr) {
        Set<String> metrics = new TreeSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("gpu_operator_[a-z_]+").matcher(expr);
        while (m.find()) {
            metrics.add(m.group());
        }
        return metrics;
    }

    private static JsonNode read(String body) {
        try {
            return JSON.readTree(body);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
