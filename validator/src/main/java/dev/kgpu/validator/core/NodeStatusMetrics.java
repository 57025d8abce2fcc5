package dev.kgpu.validator.core;

import java.time.InstantSource;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * gpu-operator's node-status exporter ({@code COMPONENT=metrics}, {@code cmd/nvidia-validator/metrics.go}): the
 * node's validation state as gauges with NVIDIA's names, help texts and single {@code node} label, which
 * gpu-operator's alert rules read. Each {@code refresh*} method takes one reading (the exporter calls them on
 * NVIDIA's periods); {@link #samples()} is what a scrape serves, never computed on the scrape.
 *
 * <p>Where kgpu reads differently: the driver check is the {@code driver} component's (NVML through nvml-ffm,
 * where NVIDIA runs {@code nvidia-smi}); NVIDIA PCI functions are counted in sysfs (vendor {@code 0x10de}), where
 * NVIDIA counts the lines of {@code lspci} that say "nvidia"; a node that cannot be read (no in-cluster
 * configuration included) is {@code -1} devices, where NVIDIA's exporter gives up on that gauge and leaves it 0.
 *
 * <p>Thread-safe: refreshes may run on any thread, values are published whole.
 */
public final class NodeStatusMetrics {

    /** One gauge: NVIDIA's name and help text, and its value now. */
    public record Sample(String name, String help, double value) {
    }

    /** The status files whose presence gpu-operator's exporter reports, with its gauge names. */
    static final Map<Component, String> READY_GAUGES = new EnumMap<>(Map.of(
            Component.DRIVER, "gpu_operator_node_driver_ready",
            Component.TOOLKIT, "gpu_operator_node_toolkit_ready",
            Component.PLUGIN, "gpu_operator_node_plugin_ready",
            Component.CUDA, "gpu_operator_node_cuda_ready"));

    private static final System.Logger LOG = System.getLogger(NodeStatusMetrics.class.getName());

    private final String node;
    private final StatusFiles statusFiles;
    private final ComponentValidator driver;
    private final Supplier<Cluster> cluster;
    private final PciDevices pci;
    private final InstantSource clock;
    private final double startedAt;

    private final Map<Component, Double> ready = new EnumMap<>(Component.class);
    private double driverValidation;
    private double driverValidationLastSuccess;
    private double devicePluginDevices;
    private double devicePluginLastSuccess;
    private double nvidiaPciDevices;

    /**
     * @param driver  the {@code driver} component's check
     * @param cluster asked for on each device-plugin reading; may throw when no API server can be reached
     */
    public NodeStatusMetrics(String node, StatusFiles statusFiles, ComponentValidator driver, Supplier<Cluster> cluster,
                             PciDevices pci, InstantSource clock) {
        this.node = Objects.requireNonNull(node, "node");
        this.statusFiles = Objects.requireNonNull(statusFiles, "statusFiles");
        this.driver = Objects.requireNonNull(driver, "driver");
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.pci = Objects.requireNonNull(pci, "pci");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.startedAt = seconds();
        READY_GAUGES.keySet().forEach(c -> ready.put(c, 0.0));
    }

    /** Every 30 s in NVIDIA's exporter: 1 for each of the four status files present in {@code OUTPUT_DIR}, else 0. */
    public void refreshStatusFiles() {
        for (Component component : READY_GAUGES.keySet()) {
            boolean present;
            try {
                present = statusFiles.exists(component);
            } catch (RuntimeException e) {
                present = false;
            }
            double value = present ? 1 : 0;
            Double before;
            synchronized (this) {
                before = ready.put(component, value);
            }
            if (before == null || before != value) {
                LOG.log(System.Logger.Level.INFO, "metrics: status file {0} is {1}", component.statusFileName(),
                        present ? "ready" : "not ready");
            }
        }
    }

    /** Every 60 s: the driver check; 1 and the time of the success when it passes, else 0. */
    public void refreshDriver() throws InterruptedException {
        try {
            driver.validate();
            synchronized (this) {
                driverValidation = 1;
                driverValidationLastSuccess = seconds();
            }
        } catch (ComponentFailure e) {
            LOG.log(System.Logger.Level.ERROR, "metrics: failed to validate the driver: {0}", e.reason());
            synchronized (this) {
                driverValidation = 0;
            }
        }
    }

    /**
     * Every 30 s: the node's GPU capacity as the device plugin advertises it ({@code nvidia.com/gpu*} and
     * {@code nvidia.com/mig-*}, summed), and the time it was last above zero; -1 when the node cannot be read.
     */
    public void refreshDevicePlugin() {
        double count;
        try {
            Optional<NodeResources> resources = cluster.get().node(node);
            count = resources.map(r -> r.gpuCapacity().values().stream().mapToLong(Long::longValue).sum()).orElse(-1L);
            if (resources.isEmpty()) {
                LOG.log(System.Logger.Level.ERROR, "metrics: node {0} not found: cannot count the device plugin's devices", node);
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "metrics: could not read node {0}: {1}", node, e.getMessage());
            count = -1;
        }
        synchronized (this) {
            devicePluginDevices = count;
            if (count > 0) {
                devicePluginLastSuccess = seconds();
            }
        }
    }

    /** Every 60 s: the NVIDIA PCI functions on the node (GPUs, their audio functions, NVSwitches); -1 when unreadable. */
    public void refreshPci() {
        double count;
        try {
            count = pci.count(PciDevices.NVIDIA);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "metrics: could not count the NVIDIA PCI devices: {0}", e.getMessage());
            count = -1;
        }
        synchronized (this) {
            nvidiaPciDevices = count;
        }
    }

    /** The gauges as they stand, sorted by name as NVIDIA's registry serves them. */
    public synchronized List<Sample> samples() {
        return List.of(
                new Sample("gpu_operator_node_cuda_ready",
                        "1 if cuda synchronization barrier on the local node is open, 0 otherwise", ready.get(Component.CUDA)),
                new Sample("gpu_operator_node_device_plugin_devices_total",
                        "number of GPU devices exposed by the DevicePlugin on the local node. -1 if failing to inspect"
                                + " the node spec.", devicePluginDevices),
                new Sample("gpu_operator_node_device_plugin_validation_last_success_ts_seconds",
                        "timestamp (in seconds) of the last time GPU devices were found on the local node spec",
                        devicePluginLastSuccess),
                new Sample("gpu_operator_node_driver_ready",
                        "1 if the driver synchronization barrier of the the local node is open, 0 otherwise",
                        ready.get(Component.DRIVER)),
                new Sample("gpu_operator_node_driver_validation",
                        "1 if the driver validation test passed on the local node, 0 otherwise", driverValidation),
                new Sample("gpu_operator_node_driver_validation_last_success_ts_seconds",
                        "timestamp (in seconds) of the last successful driver test validation", driverValidationLastSuccess),
                new Sample("gpu_operator_node_metrics_ready_ts_seconds",
                        "timestamp (in seconds) of the launch time of the GPU Operator node metrics Pod", startedAt),
                new Sample("gpu_operator_node_plugin_ready",
                        "1 if the device plugin synchronization barrier on the local is open, 0 otherwise",
                        ready.get(Component.PLUGIN)),
                new Sample("gpu_operator_node_toolkit_ready",
                        "1 if the container-toolkit synchronization barrier on the local node is open, 0 otherwise",
                        ready.get(Component.TOOLKIT)),
                new Sample("gpu_operator_nvidia_pci_devices_total",
                        "number of NVIDIA devices found in the node. -1 if failing to count", nvidiaPciDevices));
    }

    /** The Prometheus text exposition (format 0.0.4) of {@link #samples()}, each with {@code node="<node>"}. */
    public String exposition() {
        StringBuilder out = new StringBuilder();
        String label = "{node=\"" + escape(node) + "\"} ";
        for (Sample sample : samples()) {
            out.append("# HELP ").append(sample.name()).append(' ').append(sample.help()).append('\n')
                    .append("# TYPE ").append(sample.name()).append(" gauge\n")
                    .append(sample.name()).append(label).append(format(sample.value())).append('\n');
        }
        return out.toString();
    }

    public String node() {
        return node;
    }

    private double seconds() {
        return clock.instant().getEpochSecond();
    }

    static String format(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 0x1p53) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
