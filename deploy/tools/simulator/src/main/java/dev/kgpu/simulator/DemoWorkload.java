package dev.kgpu.simulator;

import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.kubelet.SimulatedKubelet;
import dev.kgpu.sim.runtime.SimulatedGpus;
import dev.kgpu.simulator.report.NodeReport;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The demo workload {@code ml/cuda-demo}: a long-running pod holding one GPU (or, on a node without
 * {@code nvidia.com/gpu}, one of its MIG resources), so that the exporter's series of that GPU carry
 * {@code container}, {@code namespace} and {@code pod}.
 */
final class DemoWorkload {

    static final String NAMESPACE = "ml";
    static final String POD = "cuda-demo";
    static final String IMAGE = "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04";
    private static final String GPU = "nvidia.com/gpu";

    /** What became of it, a few series for the summary, and what went wrong if anything did. */
    record Outcome(NodeReport.Demo demo, List<String> samples, Optional<String> problem) {
    }

    private final KubernetesClient client;
    private final KubeletSimulator kubelet;
    private final SimulatedGpus gpus;
    private final MetricsScraper metrics;
    private final Duration timeout;
    private final String migStrategy;

    DemoWorkload(KubernetesClient client, KubeletSimulator kubelet, SimulatedGpus gpus, MetricsScraper metrics,
                 Duration timeout, String migStrategy) {
        this.client = client;
        this.kubelet = kubelet;
        this.gpus = gpus;
        this.metrics = metrics;
        this.timeout = timeout;
        this.migStrategy = migStrategy;
    }

    /** Starts the pod, waits until it runs and until the exporter's series name it. */
    Outcome run() {
        String podName = NAMESPACE + "/" + POD;
        Map<String, Long> allocatable = kubelet.allocatable();
        Optional<String> resource = allocatable.getOrDefault(GPU, 0L) > 0 ? Optional.of(GPU)
                : allocatable.entrySet().stream().filter(e -> e.getKey().startsWith("nvidia.com/mig-") && e.getValue() > 0)
                .map(Map.Entry::getKey).findFirst();
        if (resource.isEmpty()) {
            return notAttributed(new NodeReport.Demo(podName, GPU, "not started", List.of(), false, Optional.of(
                    "not started: the node has no allocatable nvidia.com/gpu or nvidia.com/mig-* device")), true);
        }
        client.pods().inNamespace(NAMESPACE).resource(new PodBuilder()
                .withNewMetadata().withName(POD).withNamespace(NAMESPACE).addToLabels("app", POD).endMetadata()
                .withNewSpec().withRestartPolicy("Always")
                .addNewContainer().withName("main").withImage(IMAGE).withCommand("sleep", "infinity")
                .withNewResources().addToLimits(resource.get(), new Quantity("1"))
                .addToRequests(resource.get(), new Quantity("1")).endResources()
                .endContainer().endSpec().build()).create();
        Pod pod = Await.until("pod " + podName + " to run", timeout, () -> Optional.ofNullable(current())
                .filter(p -> p.getStatus() != null && p.getStatus().getPhase() != null
                        && (p.getStatus().getPhase().equals("Running") || p.getStatus().getPhase().equals("Failed")
                        || conditions(p).stream().anyMatch(c -> "Unschedulable".equals(c.getReason())))),
                () -> "pod " + current());
        String phase = pod.getStatus().getPhase();
        List<String> devices = Optional.ofNullable(kubelet.pods().get(SimulatedKubelet.podKey(NAMESPACE, POD)))
                .map(a -> a.deviceIds(resource.get())).orElse(List.of());
        if (!phase.equals("Running")) {
            String why = conditions(pod).stream().map(PodCondition::getMessage).filter(Objects::nonNull).findFirst()
                    .orElse("");
            String note = "not running: " + phase + (why.isEmpty() ? "" : " (" + why + ")")
                    + Optional.ofNullable(pod.getStatus().getMessage()).map(m -> " " + m).orElse("");
            return notAttributed(new NodeReport.Demo(podName, resource.get(), phase, devices, false, Optional.of(note)), true);
        }
        Optional<SimulatedGpus.Gpu> wholeMigGpu = devices.stream().map(gpus::find).flatMap(Optional::stream)
                .flatMap(v -> v instanceof SimulatedGpus.Visible.WholeGpu whole && whole.gpu().migEnabled()
                        ? Optional.of(whole.gpu()).stream() : Optional.<SimulatedGpus.Gpu>empty().stream())
                .findFirst();
        if (wholeMigGpu.isPresent()) {
            // as on a real node: a MIG-enabled GPU is watched as its GPU instances, so no series names the GPU
            String note = "not attributed: it holds GPU " + wholeMigGpu.get().index() + " whole while its MIG mode is on"
                    + " (MIG strategy " + migStrategy + "); the exporter, like dcgm-exporter, reports such a GPU by"
                    + " its GPU instances. Try --mig-strategy=mixed.";
            return notAttributed(new NodeReport.Demo(podName, resource.get(), phase, devices, false, Optional.of(note)), false);
        }
        String marker = "pod=\"" + POD + "\"";
        String exposition = Await.until("the exporter's series of pod " + podName, timeout, () -> {
            String body = metrics.fetch();
            return body.contains(marker) ? Optional.of(body) : Optional.empty();
        }, () -> "no series with " + marker + " at " + metrics.uri());
        return new Outcome(new NodeReport.Demo(podName, resource.get(), phase, devices, true, Optional.empty()),
                MetricsScraper.samples(exposition, Optional.of(marker)), Optional.empty());
    }

    private Outcome notAttributed(NodeReport.Demo demo, boolean problem) {
        return new Outcome(demo, MetricsScraper.samples(metrics.fetch(), Optional.empty()),
                problem ? demo.note().map(n -> "demo workload " + n) : Optional.empty());
    }

    private Pod current() {
        return client.pods().inNamespace(NAMESPACE).withName(POD).get();
    }

    private static List<PodCondition> conditions(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getConditions() == null ? List.of() : pod.getStatus().getConditions();
    }
}
