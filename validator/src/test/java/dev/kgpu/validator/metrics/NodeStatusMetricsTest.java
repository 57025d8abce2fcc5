package dev.kgpu.validator.metrics;

import dev.kgpu.sim.prometheus.PrometheusServer;
import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.NodeStatusMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The node-status exporter's readings, with gpu-operator's names, on a fake node. */
class NodeStatusMetricsTest {

    static final InstantSource CLOCK = InstantSource.fixed(Instant.ofEpochSecond(1_700_000_000L));

    @TempDir
    Path dir;

    static Path resource(String name) throws URISyntaxException {
        return Path.of(NodeStatusMetricsTest.class.getClassLoader().getResource(name).toURI());
    }

    static Map<String, Double> values(NodeStatusMetrics metrics) {
        return metrics.samples().stream().collect(Collectors.toMap(NodeStatusMetrics.Sample::name,
                NodeStatusMetrics.Sample::value));
    }

    @Test
    void theGaugesAreGpuOperatorsNamesAndHelpTexts() throws Exception {
        List<String> theirs = Files.readAllLines(resource("conformance/gpu-operator/node-status-metrics.tsv"));
        NodeStatusMetrics metrics = new NodeFixture(dir, "gpu-1").metrics(CLOCK);

        assertThat(metrics.samples()).extracting(s -> s.name() + "\t" + s.help()).containsExactlyElementsOf(theirs);
    }

    @Test
    void statusFilesAreTheOnesGpuOperatorsComponentsWrite() throws Exception {
        Map<String, String> theirs = Files.readAllLines(resource("conformance/gpu-operator/status-files.tsv")).stream()
                .map(l -> l.split("\t")).collect(Collectors.toMap(f -> f[0], f -> f[1]));
        for (Component component : Component.values()) {
            if (component != Component.METRICS) {
                assertThat(theirs).as("gpu-operator's file of %s", component).containsEntry(component.id(),
                        component.statusFileName());
            }
        }
        assertThat(theirs.keySet()).as("every gpu-operator component is implemented or refused by name")
                .allMatch(id -> Component.byId(id).isPresent() || Component.UNSUPPORTED.containsKey(id));
    }

    @Test
    void beforeAnyReadingEveryGaugeIsZeroButTheStartTime() {
        assertThat(values(new NodeFixture(dir, "gpu-1").metrics(CLOCK))).containsOnly(
                Map.entry("gpu_operator_node_cuda_ready", 0.0),
                Map.entry("gpu_operator_node_device_plugin_devices_total", 0.0),
                Map.entry("gpu_operator_node_device_plugin_validation_last_success_ts_seconds", 0.0),
                Map.entry("gpu_operator_node_driver_ready", 0.0),
                Map.entry("gpu_operator_node_driver_validation", 0.0),
                Map.entry("gpu_operator_node_driver_validation_last_success_ts_seconds", 0.0),
                Map.entry("gpu_operator_node_metrics_ready_ts_seconds", 1.7e9),
                Map.entry("gpu_operator_node_plugin_ready", 0.0),
                Map.entry("gpu_operator_node_toolkit_ready", 0.0),
                Map.entry("gpu_operator_nvidia_pci_devices_total", 0.0));
    }

    @Test
    void aHealthyNodeReadsReadyEverywhere() throws Exception {
        NodeFixture node = new NodeFixture(dir, "gpu-1").pci("0000:07:00.0", 0x10de).pci("0000:07:00.1", 0x10de)
                .pci("0000:0f:00.0", 0x10de).pci("0000:00:1f.0", 0x8086).pci("0000:0c:00.0", 0x15b3);
        for (Component c : List.of(Component.DRIVER, Component.TOOLKIT, Component.PLUGIN, Component.CUDA)) {
            node.ready(c, true);
        }
        node.capacity.set(Optional.of(Map.of("nvidia.com/gpu", 1L, "nvidia.com/mig-1g.10gb", 7L, "cpu", 64L)));
        NodeStatusMetrics metrics = node.metrics(CLOCK);

        metrics.refreshStatusFiles();
        metrics.refreshDriver();
        metrics.refreshDevicePlugin();
        metrics.refreshPci();

        assertThat(values(metrics))
                .containsEntry("gpu_operator_node_driver_ready", 1.0).containsEntry("gpu_operator_node_toolkit_ready", 1.0)
                .containsEntry("gpu_operator_node_plugin_ready", 1.0).containsEntry("gpu_operator_node_cuda_ready", 1.0)
                .containsEntry("gpu_operator_node_driver_validation", 1.0)
                .containsEntry("gpu_operator_node_driver_validation_last_success_ts_seconds", 1.7e9)
                .as("nvidia.com/gpu and nvidia.com/mig-* capacity, summed")
                .containsEntry("gpu_operator_node_device_plugin_devices_total", 8.0)
                .containsEntry("gpu_operator_node_device_plugin_validation_last_success_ts_seconds", 1.7e9)
                .as("NVIDIA PCI functions, a GPU's audio function included")
                .containsEntry("gpu_operator_nvidia_pci_devices_total", 3.0);
        assertThat(metrics.exposition()).contains("""
                # HELP gpu_operator_node_device_plugin_devices_total number of GPU devices exposed by the DevicePlugin\
                 on the local node. -1 if failing to inspect the node spec.
                # TYPE gpu_operator_node_device_plugin_devices_total gauge
                gpu_operator_node_device_plugin_devices_total{node="gpu-1"} 8
                """).contains("gpu_operator_node_metrics_ready_ts_seconds{node=\"gpu-1\"} 1700000000\n");
    }

    @Test
    void whatCannotBeReadIsZeroOrMinusOneAsInGpuOperator() throws Exception {
        NodeFixture node = new NodeFixture(dir, "gpu-1").ready(Component.DRIVER, true);
        NodeStatusMetrics metrics = node.metrics(CLOCK);
        metrics.refreshStatusFiles();
        metrics.refreshDriver();
        node.ready(Component.DRIVER, false);
        node.driverWorks.set(false);
        node.capacity.set(null);
        Files.delete(node.hostRoot.resolve("sys/bus/pci/devices"));

        metrics.refreshStatusFiles();
        metrics.refreshDriver();
        metrics.refreshDevicePlugin();
        metrics.refreshPci();

        assertThat(values(metrics)).containsEntry("gpu_operator_node_driver_ready", 0.0)
                .containsEntry("gpu_operator_node_driver_validation", 0.0)
                .as("the last success stays").containsEntry("gpu_operator_node_driver_validation_last_success_ts_seconds", 1.7e9)
                .containsEntry("gpu_operator_node_device_plugin_devices_total", -1.0)
                .containsEntry("gpu_operator_nvidia_pci_devices_total", -1.0);
        node.capacity.set(Optional.empty());
        metrics.refreshDevicePlugin();
        assertThat(values(metrics)).as("no such node").containsEntry("gpu_operator_node_device_plugin_devices_total", -1.0);
    }

    @Test
    void promtoolAcceptsTheExposition() throws Exception {
        NodeStatusMetrics metrics = new NodeFixture(dir, "gpu-1").metrics(CLOCK);
        Path exposition = dir.resolve("metrics.txt");
        Files.writeString(exposition, metrics.exposition());
        Process promtool = new ProcessBuilder(PrometheusServer.tool("promtool").toString(), "check", "metrics")
                .redirectInput(exposition.toFile()).redirectErrorStream(true).start();
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        // 0: clean; 3: lint findings only, here about gpu-operator's own names, which compatibility keeps
        assertThat(promtool.exitValue()).as(output).isIn(0, 3);
        assertThat(output.strip().lines().filter(l -> !l.isBlank()).toList()).as("promtool's findings").containsExactly(
                "gpu_operator_node_device_plugin_devices_total non-counter metrics should not have \"_total\" suffix",
                "gpu_operator_nvidia_pci_devices_total non-counter metrics should not have \"_total\" suffix");
    }

}
