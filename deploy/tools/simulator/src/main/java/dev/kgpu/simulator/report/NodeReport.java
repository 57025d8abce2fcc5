package dev.kgpu.simulator.report;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the simulated node showed once it was up: the summary prints it, {@code summary.json} holds it.
 *
 * @param nodeName        the Node
 * @param profile         the mock NVML profile
 * @param gpus            e.g. {@code 8 x NVIDIA A100-SXM4-80GB}
 * @param migStrategy     the agents' MIG_STRATEGY
 * @param capacity        the Node's {@code nvidia.com/*} capacity, as stored in the API server
 * @param allocatable     the Node's {@code nvidia.com/*} allocatable
 * @param resources       what the plugin registered with the kubelet
 * @param labels          every {@code nvidia.com/} label on the Node
 * @param metricsUrl      the exporter's {@code /metrics}
 * @param metricSamples   a few series as the exporter serves them, one attributed to the demo pod when possible
 * @param demo            the demo workload
 * @param verdicts        the validator's verdict per component
 * @param agents          start-to-ready and memory of each agent
 * @param jvmOptions      the JVM options file the agents ran with, if any
 * @param workDir         sockets, logs, kubeconfig
 * @param kubeconfig      for kubectl
 * @param apiServerUrl    the simulated API server
 * @param problems        what did not work (validator failures, a demo pod without attribution, ...); empty when all did
 */
public record NodeReport(String nodeName, String profile, String gpus, String migStrategy,
                         Map<String, String> capacity, Map<String, String> allocatable,
                         List<RegisteredResource> resources, Map<String, String> labels,
                         String metricsUrl, List<String> metricSamples, Demo demo, List<ValidatorVerdict> verdicts,
                         List<AgentReport> agents, Optional<String> jvmOptions, String workDir, String kubeconfig,
                         String apiServerUrl, String eventsFile, String firstGpuUuid, List<String> problems) {

    public NodeReport {
        capacity = Map.copyOf(capacity);
        allocatable = Map.copyOf(allocatable);
        resources = List.copyOf(resources);
        labels = Map.copyOf(labels);
        metricSamples = List.copyOf(metricSamples);
        verdicts = List.copyOf(verdicts);
        agents = List.copyOf(agents);
        problems = List.copyOf(problems);
    }

    /** Whether everything came up and the validator passed every component. */
    public boolean healthy() {
        return problems.isEmpty();
    }

    /** One resource the plugin registered: name, socket, devices. */
    public record RegisteredResource(String resourceName, String endpoint, long devices, long healthy) {
    }

    /**
     * The demo workload.
     *
     * @param pod       {@code namespace/name}
     * @param resource  what it asked for
     * @param phase     its phase once the node was up
     * @param devices   the device ids it was given
     * @param attributed whether the exporter's series name it
     * @param note      why it was not started or not attributed, when so
     */
    public record Demo(String pod, String resource, String phase, List<String> devices, boolean attributed,
                       Optional<String> note) {
        public Demo {
            devices = List.copyOf(devices);
        }
    }

    /** One line of the validator's verdict: component, PASSED/FAILED/SKIPPED, detail. */
    public record ValidatorVerdict(String component, String result, String detail) {
        public boolean passed() {
            return result.equals("PASSED");
        }
    }

    /**
     * One agent.
     *
     * @param startToReady from spawning the process to its readiness (the validator: to its verdict)
     * @param rssMib       resident memory when ready (the validator's one-shot run: its peak)
     * @param rssKind      {@code at ready} or {@code peak}
     * @param aotCache     whether Java's AOT cache was used, in words
     */
    public record AgentReport(String agent, long pid, Duration startToReady, double rssMib, String rssKind,
                              String readyMeans, String aotCache, boolean aotCacheUsed, String log) {
    }
}
