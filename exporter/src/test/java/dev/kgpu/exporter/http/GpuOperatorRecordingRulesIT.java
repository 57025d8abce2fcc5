package dev.kgpu.exporter.http;

import dev.kgpu.sim.prometheus.PrometheusServer;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * gpu-operator's recording rules for dcgm-exporter ({@code assets/state-dcgm-exporter/1000_prometheus_rule_openshift.yaml},
 * as shipped) loaded into a real Prometheus (Debian's package) that scrapes kgpu's exporter: the rule file passes
 * {@code promtool check rules}, every rule evaluates healthy, and every {@code accelerator_*} series it records has
 * one series a GPU with {@code vendor="nvidia"}, except those listed in {@link #WITHOUT_DATA} with why. The rules'
 * own {@code interval: 30s} is kept, so this takes 15 to 60 s.
 */
@QuarkusTest
class GpuOperatorRecordingRulesIT {

    /** Series gpu-operator records that have no data from kgpu's exporter, nor from NVIDIA's, and why. */
    static final Map<String, String> WITHOUT_DATA = Map.of("accelerator_memory_total_bytes",
            "its DCGM_FI_DEV_FB_TOTAL is in neither dcgm-exporter's default-counters.csv nor gpu-operator's"
                    + " dcp-metrics-included.csv, so no exporter serves it with the counters files they ship");

    static final Pattern RULE = Pattern.compile("(?m)^\\s*- record: (\\S+)\\s*\\n\\s*expr: (\\S+)");

    @TestHTTPResource("/metrics")
    URL metrics;

    @TempDir
    Path dir;

    @Test
    void everySeriesGpuOperatorRecordsHasDataFromKgpusExporter() throws Exception {
        Path rules = rulesFile();
        PrometheusServer.checkRules(rules);

        Map<String, String> recorded = recordingRules(Files.readString(rules));
        assertThat(recorded).hasSize(7).containsKeys(WITHOUT_DATA.keySet().toArray(String[]::new));
        try (PrometheusServer prometheus = PrometheusServer.start(dir, "nvidia-dcgm-exporter",
                List.of(metrics.getHost() + ":" + metrics.getPort()), List.of(rules))) {
            String gpus = prometheus.awaitQuery("count(DCGM_FI_DEV_GPU_TEMP)", b -> b.contains("\"value\":["),
                    Duration.ofSeconds(90));
            Matcher count = Pattern.compile("\"value\":\\[[^,]+,\"(\\d+)\"]").matcher(gpus);
            assertThat(count.find()).as(gpus).isTrue();
            String perGpu = "\"value\":[";
            for (var rule : recorded.entrySet()) {
                if (WITHOUT_DATA.containsKey(rule.getKey())) {
                    continue;
                }
                String series = prometheus.awaitQuery("count(" + rule.getKey() + "{vendor=\"nvidia\"})",
                        b -> b.contains(perGpu), Duration.ofSeconds(120));
                assertThat(series).as("%s (%s): one series a GPU", rule.getKey(), rule.getValue())
                        .contains(",\"" + count.group(1) + "\"]");
            }
            String health = prometheus.get("rules");
            assertThat(health).doesNotContain("\"health\":\"err\"").doesNotContain("\"health\":\"unknown\"");
            for (var missing : WITHOUT_DATA.entrySet()) {
                assertThat(prometheus.query(missing.getKey())).as("%s: %s", missing.getKey(), missing.getValue())
                        .contains("\"result\":[]");
                assertThat(prometheus.query(recorded.get(missing.getKey()))).as("the exporter serves no %s",
                        recorded.get(missing.getKey())).contains("\"result\":[]");
            }
        }
    }

    /** A record name and its expression, as the rule file lists them. */
    static Map<String, String> recordingRules(String ruleFile) {
        Matcher m = RULE.matcher(ruleFile);
        Map<String, String> rules = new java.util.TreeMap<>();
        while (m.find()) {
            rules.put(m.group(1), m.group(2));
        }
        return rules;
    }

    /**
     * The PrometheusRule's {@code spec}, which is a Prometheus rule file ({@code groups:}), cut out of the
     * manifest as it is: the lines below {@code spec:}, two spaces less indented.
     */
    private Path rulesFile() throws Exception {
        List<String> manifest = Files.readAllLines(resource(
                "conformance/gpu-operator/assets/state-dcgm-exporter/1000_prometheus_rule_openshift.yaml"));
        assertThat(manifest).contains("kind: PrometheusRule", "spec:");
        String spec = manifest.subList(manifest.indexOf("spec:") + 1, manifest.size()).stream()
                .map(line -> line.startsWith("  ") ? line.substring(2) : line).collect(Collectors.joining("\n", "", "\n"));
        Path file = dir.resolve("gpu-operator-dcgm-exporter-rules.yaml");
        Files.writeString(file, spec);
        return file;
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(GpuOperatorRecordingRulesIT.class.getClassLoader().getResource(name).toURI());
    }
}
