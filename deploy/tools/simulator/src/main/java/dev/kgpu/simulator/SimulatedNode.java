package dev.kgpu.simulator;

import dev.kgpu.sim.apiserver.ApiServer;
import dev.kgpu.sim.dra.GpuSlices;
import dev.kgpu.sim.kubelet.SchedulerAndKubelet;
import dev.kgpu.sim.kubelet.SimulatedKubelet;
import dev.kgpu.sim.pluginwatcher.KubeletDraDrivers;
import dev.kgpu.sim.pluginwatcher.PluginWatcher;
import dev.kgpu.sim.runtime.CdiInjection;
import dev.kgpu.sim.runtime.GpuOccupancy;
import dev.kgpu.sim.runtime.NvidiaContainerRuntime;
import dev.kgpu.sim.runtime.SimulatedGpus;
import dev.kgpu.simulator.agents.Agent;
import dev.kgpu.simulator.agents.AgentLauncher;
import dev.kgpu.simulator.agents.AgentProcess;
import dev.kgpu.simulator.agents.SimulatorException;
import dev.kgpu.simulator.agents.ValidatorMode;
import dev.kgpu.simulator.report.NodeReport;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A whole GPU node on one machine: the simulated parts (GPUs through the mock NVML, the API server, the
 * kubelet's device manager and PodResources API, a scheduler and container runtime) and the real agents,
 * each a process of its own started from its packaged app.
 *
 * <p>{@link #boot} brings up everything but the agents; {@link #bringUp} starts them in a node's order and
 * waits until each has done its job; {@link #close} stops everything (also from a shutdown hook).
 */
public final class SimulatedNode implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SimulatedNode.class.getName());

    /** Where the agents' objects (the validator's sample pods) go, as gpu-operator's namespace. */
    public static final String AGENT_NAMESPACE = "kgpu";
    static final String NVIDIA_PREFIX = "nvidia.com/";
    private static final Duration STOP_GRACE = Duration.ofSeconds(15);
    private static final Pattern VERDICT = Pattern.compile("^(\\S+) (PASSED|FAILED|SKIPPED)\\s?(.*)$");

    private final SimulatorOptions options;
    private final PrintStream progress;
    /** Probes and scrapes in HTTP/1.1, as the kubelet and Prometheus send them (Java's default would ask every
     *  agent to upgrade to HTTP/2, work no real probe causes). */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final List<AgentProcess> agents = new CopyOnWriteArrayList<>();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Object closing = new Object();
    private volatile boolean stopping;
    private SimulatedGpus gpus;
    /** How many running containers each GPU is in: a GPU in two at once is said at once, the most at close. */
    private final GpuOccupancy occupancy = new GpuOccupancy();
    private NodeLayout layout;
    private ApiServer api;
    private SimulatedKubelet kubelet;
    private SchedulerAndKubelet pods;
    /** With {@code --dra}: the kubelet's plugin watcher, through which its DRA manager calls the plugin's driver. */
    private PluginWatcher draKubelet;
    private AgentLauncher launcher;
    private AgentEnvironment environment;
    /** With {@code --sharing=mps}: what the plugin, its mps-control-daemon mode and discovery get on top. */
    private Map<String, String> mps = Map.of();

    private SimulatedNode(SimulatorOptions options, PrintStream progress) {
        this.options = options;
        this.progress = progress;
    }

    /**
     * Lays out the work directory and starts the API server, the kubelet and the pod runner.
     *
     * @param environment the simulator's own environment ({@code JAVA_HOME}, {@code PATH}, ...)
     */
    public static SimulatedNode boot(SimulatorOptions options, Map<String, String> environment, PrintStream progress) {
        Path root = options.root();
        Path mockLibrary = root.resolve("nvml-ffm/nvml/target/mock/libnvidia-ml.so.1");
        if (!Files.isRegularFile(mockLibrary)) {
            throw new SimulatorException.NotBuilt("the mock NVML is not built (" + root.relativize(mockLibrary)
                    + " is missing): run ./mvnw -B -DskipTests package first (it needs gcc)");
        }
        AgentLauncher.checkBuilt(root, List.of(Agent.values()));
        AgentLauncher.checkPortsFree(options.ports());

        SimulatedNode node = new SimulatedNode(options, progress);
        try {
            node.gpus = readGpus(mockLibrary, node.profileForAgents());
            node.layout = NodeLayout.create(options.workDir(), node.gpus, "kgpu-simulated-" + profileName(options.profile()));
            SimulatorLog.toFile(node.layout.logs().resolve("simulator.log"));
            LOG.log(System.Logger.Level.INFO, "simulated node {0}: profile {1}, {2}", options.nodeName(),
                    options.profile(), node.gpus.describe());
            node.api = ApiServer.start(0);
            node.api.writeKubeconfig(node.layout.kubeconfig(), "kgpu-simulated-node");
            node.createNodeAndNamespaces();
            node.kubelet = SimulatedKubelet.start(node.layout.devicePlugins(), node.layout.podResourcesSocket(),
                    node.api.client(), options.nodeName(), Map.of("cpu", new Quantity("8"),
                            "memory", new Quantity("64Gi"), "pods", new Quantity("110")));
            Optional<String> sampleImage = Optional.ofNullable(environment.get("KGPU_CUDA_SAMPLE_IMAGE")).filter(i -> !i.isBlank());
            SchedulerAndKubelet.Builder pods = SchedulerAndKubelet.forNode(node.api.client(), options.nodeName())
                    .deviceManager(node.kubelet)
                    .runtime(new NvidiaContainerRuntime(node.gpus, sampleImage, new CdiInjection(node.layout.cdiSpecDirectories()),
                            node.occupancy))
                    .logs(node.api.logs());
            if (options.dra()) {
                // the kubelet's plugin watcher, which the plugin's DRA driver registers with; NVIDIA's DeviceClasses,
                // as the chart installs them
                node.draKubelet = PluginWatcher.start(node.layout.pluginsRegistry());
                var deviceClasses = node.api.client().dynamicResourceAllocation().v1().deviceClasses();
                deviceClasses.resource(GpuSlices.gpuClass()).create();
                deviceClasses.resource(GpuSlices.migClass()).create();
                pods.dynamicResources(new KubeletDraDrivers(node.draKubelet));
            }
            node.pods = pods.start();
            node.launcher = new AgentLauncher(root, AgentLauncher.javaExecutable(environment),
                    AgentLauncher.jvmOptionsFile(root), node.layout.logs(), environment);
            node.environment = new AgentEnvironment(mockLibrary, node.profileForAgents(), options.nodeName(),
                    AGENT_NAMESPACE, options.migStrategy(), options.deviceListStrategy(), sampleImage, node.api.url(), node.layout,
                    options.footprintRuns() > 0 ? ValidatorMode.DAEMON : ValidatorMode.ONESHOT, options.dra());
            if (options.mps()) {
                node.mps = node.mpsEnvironment(mockLibrary.resolveSibling("nvidia-cuda-mps-control"));
            }
            progress.println("kgpu-sim: node " + options.nodeName() + " (" + node.gpus.describe() + ") in "
                    + node.layout.root() + "; API server " + node.api.url());
            return node;
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    private static SimulatedGpus readGpus(Path mockLibrary, String profile) {
        try {
            return SimulatedGpus.read(mockLibrary, profile);
        } catch (RuntimeException e) {
            throw new SimulatorException.SetupFailed("--profile was '" + profile + "' but the mock NVML could not"
                    + " simulate it: " + e.getMessage(), e);
        }
    }

    /** A shipped profile by name; a file by its absolute path (the agents run elsewhere). */
    private String profileForAgents() {
        return options.profile().contains("/") || options.profile().endsWith(".json")
                ? options.profileFile().toString() : options.profile();
    }

    private static String profileName(String profile) {
        String name = Path.of(profile).getFileName().toString();
        return name.endsWith(".json") ? name.substring(0, name.length() - ".json".length()) : name;
    }

    private void createNodeAndNamespaces() {
        KubernetesClient client = api.client();
        for (String namespace : List.of(AGENT_NAMESPACE, DemoWorkload.NAMESPACE, "kube-node-lease")) {
            Namespace ns = new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build();
            client.namespaces().resource(ns).create();
        }
        String name = options.nodeName();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                .addToLabels("kubernetes.io/hostname", name)
                .addToLabels("kubernetes.io/os", "linux")
                .addToLabels("kubernetes.io/arch", "amd64")
                .addToLabels("node.kubernetes.io/instance-type", "kgpu-simulated")
                .endMetadata().build()).create();
        String now = java.time.Instant.now().toString();
        client.nodes().withName(name).editStatus(node -> new NodeBuilder(node).editOrNewStatus()
                .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady")
                .withMessage("kubelet is posting ready status (kgpu simulated node)")
                .withLastHeartbeatTime(now).withLastTransitionTime(now).endCondition()
                .addNewAddress().withType("InternalIP").withAddress("127.0.0.1").endAddress()
                .addNewAddress().withType("Hostname").withAddress(name).endAddress()
                .withNewNodeInfo().withKubeletVersion("v1.32.0-kgpu-simulated").withKubeProxyVersion("")
                .withContainerRuntimeVersion("kgpu-simulated://0.1.0").withOsImage("kgpu simulated node")
                .withOperatingSystem("linux").withArchitecture("amd64")
                .withKernelVersion(System.getProperty("os.version")).withMachineID("").withSystemUUID("").withBootID("")
                .endNodeInfo().endStatus().build());
        // the kubelet's heartbeat, which kubectl describe node shows (renewed once: nothing here expires it)
        client.resources(Lease.class).inNamespace("kube-node-lease").resource(new LeaseBuilder()
                .withNewMetadata().withName(name).withNamespace("kube-node-lease").endMetadata()
                .withNewSpec().withHolderIdentity(name).withLeaseDurationSeconds(40)
                .withRenewTime(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC)).endSpec().build()).create();
    }

    // ---------------------------------------------------------------------------------------------------------
    // MPS sharing

    /** The MPS root, as the chart's host folder {@code /run/nvidia/mps} (the agents see it at the same path). */
    Path mpsRoot() {
        return layout.root().resolve("run/nvidia/mps");
    }

    /**
     * {@code --sharing=mps}: the config file that shares every GPU with MPS, read by the plugin, its
     * mps-control-daemon mode and discovery (NVIDIA's chart gives them the same ConfigMap), and where the MPS
     * daemons live; the mock's fake {@code nvidia-cuda-mps-control} as the driver's.
     */
    private Map<String, String> mpsEnvironment(Path control) {
        if (!Files.isExecutable(control)) {
            throw new SimulatorException.NotBuilt("the mock's fake nvidia-cuda-mps-control is not built (" + control
                    + " is missing): run ./mvnw -B -DskipTests package first (it needs gcc)");
        }
        Path config = layout.root().resolve("config/config.yaml");
        try {
            Files.createDirectories(config.getParent());
        } catch (java.io.IOException e) {
            throw new SimulatorException.SetupFailed("could not create " + config.getParent() + ": " + e.getMessage(), e);
        }
        NodeLayout.writeAtomically(config, """
                version: v1
                sharing:
                  mps:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: %d
                """.formatted(SimulatorOptions.MPS_REPLICAS));
        return Map.of("CONFIG_FILE", config.toString(), "MPS_ROOT", mpsRoot().toString(),
                "KGPU_MPS_CONTAINER_ROOT", mpsRoot().toString(), "KGPU_MPS_CONTROL", control.toString());
    }

    /**
     * Starts the plugin's {@code mps-control-daemon} mode (no HTTP, as NVIDIA's) and waits for its {@code .ready};
     * prints the daemon's settings as a client of it reads them back.
     */
    private AgentProcess startMpsControlDaemon() {
        Map<String, String> env = new LinkedHashMap<>(environment.of(Agent.PLUGIN, options.port(Agent.PLUGIN)));
        env.putAll(mps);
        AgentProcess daemon = launcher.start(Agent.PLUGIN, 0, env, List.of("mps-control-daemon"), "mps-control-daemon");
        agents.add(daemon);
        daemon.onUnexpectedExit(() -> progress.println("kgpu-sim: the mps-control-daemon exited with status "
                + daemon.exitStatus().orElse(-1) + "; see " + daemon.log()));
        Path ready = mpsRoot().resolve(".ready");
        Await.until("the MPS control daemon's " + ready, options.timeout(),
                () -> Files.exists(ready) ? Optional.of(true) : Optional.empty(),
                () -> String.join("\n", daemon.logTail(5)));
        Path pipe = mpsRoot().resolve("nvidia.com/gpu/pipe");
        List<String> settings = new ArrayList<>();
        for (String command : List.of("get_default_active_thread_percentage", "get_default_device_pinned_mem_limit 0")) {
            settings.add(command + " = " + askMps(pipe, command));
        }
        progress.println("kgpu-sim: the MPS control daemon of nvidia.com/gpu runs (" + pipe + "): "
                + String.join(", ", settings));
        return daemon;
    }

    /** One command to an MPS control daemon through the fake client, as the plugin's check sends it. */
    private String askMps(Path pipe, String command) {
        ProcessBuilder client = new ProcessBuilder(mps.get("KGPU_MPS_CONTROL")).redirectErrorStream(true);
        client.environment().clear();
        client.environment().put("CUDA_MPS_PIPE_DIRECTORY", pipe.toString());
        client.environment().put("CUDA_MPS_LOG_DIRECTORY", pipe.resolveSibling("log").toString());
        try {
            Process process = client.start();
            try (var in = process.getOutputStream()) {
                in.write(command.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            String answer = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
            return process.waitFor() == 0 ? answer : "no answer (" + answer + ")";
        } catch (java.io.IOException e) {
            return "no answer (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // the agents

    /**
     * Spawns {@code agent}: the validator one-shot on a node brought up, as a daemon when the footprint is
     * measured (see {@link ValidatorMode}).
     */
    public AgentProcess start(Agent agent) {
        if (stopping) {
            throw new SimulatorException.AgentExited("the node is stopping");
        }
        int port = options.port(agent);
        Map<String, String> env = new LinkedHashMap<>(environment.of(agent, port));
        if (agent == Agent.PLUGIN || agent == Agent.DISCOVERY) {
            env.putAll(mps); // --sharing=mps: the config file that shares the GPUs, where the MPS daemons are
        }
        AgentProcess process = launcher.start(agent, port, env);
        agents.add(process);
        LOG.log(System.Logger.Level.INFO, "started the {0} (pid {1}): {2}", agent.id(), Long.toString(process.pid()), process.log());
        return process;
    }

    /** Stops one agent (SIGTERM, then SIGKILL after the grace period). */
    public void stop(AgentProcess agent) {
        agent.stop(STOP_GRACE);
        agents.remove(agent);
    }

    /** What an agent looked like when it was ready. */
    record Ready(Duration startToReady, long rssKib) {
    }

    /** Waits for the agent's readiness probe and reads its RSS at that moment. */
    Ready awaitReady(AgentProcess agent) {
        Duration startToReady = agent.awaitReady(http, options.timeout());
        return new Ready(startToReady, agent.rssKib().orElse(0));
    }

    /**
     * Starts the agents in a node's order and waits until each has done its job: the plugin, discovery and the
     * exporter together; the validator (one-shot, every component) once the plugin has registered; then the
     * demo workload, until the exporter attributes it.
     */
    public NodeReport bringUp() {
        if (options.mps()) {
            progress.println("kgpu-sim: starting the plugin's mps-control-daemon mode (sharing.mps, "
                    + SimulatorOptions.MPS_REPLICAS + " replicas per GPU)");
            startMpsControlDaemon();
        }
        progress.println("kgpu-sim: starting the plugin, discovery and the exporter"
                + launcher.jvmOptions().map(f -> " with @" + options.root().relativize(f)).orElse(""));
        AgentProcess plugin = start(Agent.PLUGIN);
        AgentProcess discovery = start(Agent.DISCOVERY);
        AgentProcess exporter = start(Agent.EXPORTER);
        for (AgentProcess agent : List.of(plugin, discovery, exporter)) {
            agent.onUnexpectedExit(() -> progress.println("kgpu-sim: the " + agent.agent().id() + " exited with status "
                    + agent.exitStatus().orElse(-1) + "; see " + agent.log()));
        }
        ExecutorService waits = Executors.newVirtualThreadPerTaskExecutor();
        try {
            CompletableFuture<Ready> pluginReady = CompletableFuture.supplyAsync(() -> awaitReady(plugin), waits);
            CompletableFuture<Ready> discoveryReady = CompletableFuture.supplyAsync(() -> awaitReady(discovery), waits);
            CompletableFuture<Ready> exporterReady = CompletableFuture.supplyAsync(() -> awaitReady(exporter), waits);

            Ready pluginState = join(pluginReady);
            awaitNodeResources();
            if (options.dra()) {
                List<String> devices = awaitSliceDevices();
                progress.println("kgpu-sim: the plugin's DRA driver " + GpuSlices.DRIVER + " registered and published "
                        + devices.size() + " devices in ResourceSlices " + devices);
            }
            progress.println("kgpu-sim: the plugin registered " + kubelet.devices().capacity()
                    + "; starting the validator (one-shot, every component)");
            AgentProcess validator = start(Agent.VALIDATOR);
            CompletableFuture<AgentProcess.Exit> validatorDone =
                    CompletableFuture.supplyAsync(() -> validator.awaitExit(options.timeout()), waits);

            Ready discoveryState = join(discoveryReady);
            Map<String, String> labels = awaitLabels();
            Ready exporterState = join(exporterReady);
            AgentProcess.Exit validatorExit = join(validatorDone);
            List<NodeReport.ValidatorVerdict> verdicts = verdicts(validatorExit.status());
            progress.println("kgpu-sim: validator: " + verdicts.stream()
                    .map(v -> v.component() + " " + v.result()).toList() + "; starting the demo workload "
                    + DemoWorkload.NAMESPACE + "/" + DemoWorkload.POD);

            List<String> problems = new ArrayList<>();
            verdicts.stream().filter(v -> !v.passed())
                    .forEach(v -> problems.add("validator: " + v.component() + " " + v.result() + " " + v.detail()));
            if (verdicts.isEmpty()) {
                problems.add("the validator printed no verdict (exit status " + validatorExit.status() + "); see "
                        + validator.log() + ":\n" + String.join("\n", validator.logTail(10)));
            }
            MetricsScraper metrics = new MetricsScraper(http, exporter.port());
            DemoWorkload.Outcome demo = new DemoWorkload(api.client(), kubelet.devices(), gpus, metrics,
                    options.timeout(), options.migStrategy()).run();
            demo.problem().ifPresent(problems::add);
            NodeLayout.writeAtomically(layout.metricsText(), metrics.fetch());

            List<NodeReport.AgentReport> reports = List.of(
                    agentReport(plugin, pluginState.startToReady(), pluginState.rssKib(), "at ready"),
                    agentReport(discovery, discoveryState.startToReady(), discoveryState.rssKib(), "at ready"),
                    agentReport(exporter, exporterState.startToReady(), exporterState.rssKib(), "at ready"),
                    agentReport(validator, validatorExit.after(), validatorExit.peakRssKib(), "peak"));
            agents.remove(validator);
            return report(labels, verdicts, demo, reports, problems);
        } finally {
            // a failure leaves the other waits running: stop them now rather than at their timeouts
            waits.shutdownNow();
            waits.close();
        }
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    /** Waits until the Node's status lists every resource the kubelet has, some with allocatable devices. */
    Map<String, Long> awaitNodeResources() {
        List<Map<String, Long>> last = new ArrayList<>(List.of(Map.of()));
        return Await.until("the plugin's resources in Node " + options.nodeName() + "'s status", options.timeout(), () -> {
            Map<String, Long> expected = kubelet.devices().capacity();
            Node node = api.client().nodes().withName(options.nodeName()).get();
            Map<String, Long> allocatable = nvidiaResources(node == null || node.getStatus() == null ? null
                    : node.getStatus().getAllocatable());
            Map<String, Long> capacity = nvidiaResources(node == null || node.getStatus() == null ? null
                    : node.getStatus().getCapacity());
            last.set(0, allocatable);
            boolean published = !expected.isEmpty() && expected.entrySet().stream()
                    .allMatch(e -> e.getValue().equals(capacity.get(e.getKey())));
            boolean usable = allocatable.values().stream().anyMatch(n -> n > 0);
            return published && usable ? Optional.of(allocatable) : Optional.empty();
        }, () -> "kubelet resources " + kubelet.devices().resources() + ", Node allocatable " + last.getFirst());
    }

    /**
     * With {@code --dra}: waits until the plugin's DRA driver has registered with the kubelet and published the
     * node's devices in ResourceSlices; their names.
     */
    List<String> awaitSliceDevices() {
        draKubelet.awaitDriver(GpuSlices.DRIVER, options.timeout());
        return Await.until("the DRA driver's ResourceSlices of node " + options.nodeName(), options.timeout(), () -> {
            List<String> devices = sliceDevices();
            return devices.isEmpty() ? Optional.empty() : Optional.of(devices);
        }, () -> "ResourceSlices " + api.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems().size());
    }

    private List<String> sliceDevices() {
        return api.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
                .filter(s -> options.nodeName().equals(s.getSpec().getNodeName()) && GpuSlices.DRIVER.equals(s.getSpec().getDriver()))
                .flatMap(s -> s.getSpec().getDevices() == null ? java.util.stream.Stream.empty() : s.getSpec().getDevices().stream())
                .map(io.fabric8.kubernetes.api.model.resource.v1.Device::getName)
                .toList();
    }

    private static Map<String, Long> nvidiaResources(Map<String, Quantity> quantities) {
        Map<String, Long> result = new LinkedHashMap<>();
        if (quantities != null) {
            quantities.forEach((name, quantity) -> {
                if (name.startsWith(NVIDIA_PREFIX)) {
                    result.put(name, quantity.getNumericalAmount().longValue());
                }
            });
        }
        return result;
    }

    /** Waits until discovery's labels are on the Node and returns every {@code nvidia.com/} label. */
    Map<String, String> awaitLabels() {
        return Await.until("discovery's labels on Node " + options.nodeName(), options.timeout(), () -> {
            Map<String, String> labels = nvidiaLabels();
            return labels.containsKey("nvidia.com/gpu.count") || labels.containsKey("nvidia.com/vgpu.present")
                    ? Optional.of(labels) : Optional.empty();
        }, () -> "labels " + nvidiaLabels());
    }

    private Map<String, String> nvidiaLabels() {
        Node node = api.client().nodes().withName(options.nodeName()).get();
        Map<String, String> labels = new LinkedHashMap<>();
        if (node != null && node.getMetadata().getLabels() != null) {
            node.getMetadata().getLabels().forEach((k, v) -> {
                if (k.startsWith(NVIDIA_PREFIX)) {
                    labels.put(k, v);
                }
            });
        }
        return labels;
    }

    /** The validator's verdict lines from its stdout. */
    private List<NodeReport.ValidatorVerdict> verdicts(int exitStatus) {
        Path out = layout.logs().resolve("validator.out");
        List<NodeReport.ValidatorVerdict> verdicts = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                Matcher m = VERDICT.matcher(line.strip());
                if (m.matches()) {
                    verdicts.add(new NodeReport.ValidatorVerdict(m.group(1), m.group(2), m.group(3)));
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not read {0} (validator exit status {1}): {2}", out, exitStatus,
                    e.getMessage());
        }
        return verdicts;
    }

    // ---------------------------------------------------------------------------------------------------------
    // the report

    private NodeReport.AgentReport agentReport(AgentProcess agent, Duration startToReady, long rssKib, String rssKind) {
        var aot = agent.aotCache();
        return new NodeReport.AgentReport(agent.agent().id(), agent.pid(), startToReady, rssKib / 1024.0, rssKind,
                agent.agent().readyMeans(), aot.describe(), aot.used(), agent.log().toString());
    }

    private NodeReport report(Map<String, String> labels, List<NodeReport.ValidatorVerdict> verdicts, DemoWorkload.Outcome demo,
                              List<NodeReport.AgentReport> agentReports, List<String> problems) {
        Node node = api.client().nodes().withName(options.nodeName()).get();
        Map<String, String> capacity = new LinkedHashMap<>();
        Map<String, String> allocatable = new LinkedHashMap<>();
        nvidiaResources(node.getStatus().getCapacity()).forEach((k, v) -> capacity.put(k, Long.toString(v)));
        nvidiaResources(node.getStatus().getAllocatable()).forEach((k, v) -> allocatable.put(k, Long.toString(v)));
        List<NodeReport.RegisteredResource> resources = kubelet.devices().resources().stream()
                .map(r -> new NodeReport.RegisteredResource(r.resourceName(), r.endpoint(), r.capacity(), r.allocatable()))
                .toList();
        NodeReport report = new NodeReport(options.nodeName(), options.profile(), gpus.describe(), options.migStrategy(),
                capacity, allocatable, resources, nvidiaLabels().isEmpty() ? labels : nvidiaLabels(),
                MetricsScraper.userUrl(options.port(Agent.EXPORTER)),
                demo.samples(), demo.demo(), verdicts, agentReports, launcher.jvmOptions().map(Path::toString),
                layout.root().toString(), layout.kubeconfig().toString(), api.url(), layout.eventsFile().toString(),
                gpus.gpus().isEmpty() ? "" : gpus.gpus().getFirst().uuid(), problems);
        NodeLayout.writeAtomically(layout.nodeJson(), api.client().getKubernetesSerialization().asJson(node) + "\n");
        NodeLayout.writeAtomically(layout.summaryJson(), dev.kgpu.simulator.report.Summary.json(report));
        return report;
    }


    public NodeLayout layout() {
        return layout;
    }

    public SimulatorOptions options() {
        return options;
    }

    AgentLauncher launcher() {
        return launcher;
    }

    public boolean stopping() {
        return stopping;
    }

    /** Blocks until {@link #close()} has finished (e.g. from the shutdown hook on Ctrl-C). */
    public void awaitClosed() throws InterruptedException {
        closed.await();
    }

    /**
     * Stops the agents (SIGTERM, then SIGKILL after 15 s), the pod runner, the kubelet (its sockets go), the API
     * server; removes leftover sockets. Idempotent; safe from a shutdown hook.
     */
    @Override
    public void close() {
        synchronized (closing) {
            if (closed.getCount() == 0) {
                return;
            }
            stopping = true;
            try {
                List<AgentProcess> running = agents.stream().filter(AgentProcess::alive).toList();
                if (!running.isEmpty()) {
                    progress.println("kgpu-sim: stopping " + running.stream().map(a -> a.agent().id()).toList());
                }
                List<String> stopped = new ArrayList<>();
                try (ExecutorService stops = Executors.newVirtualThreadPerTaskExecutor()) {
                    List<CompletableFuture<String>> futures = agents.stream().map(a -> CompletableFuture.supplyAsync(
                            () -> a.agent().id() + " " + a.stop(STOP_GRACE).map(s -> "exited " + s).orElse("killed"),
                            stops)).toList();
                    futures.forEach(f -> stopped.add(f.join()));
                }
                agents.clear();
                closeQuietly(pods);
                LOG.log(System.Logger.Level.INFO, "GPU occupancy: {0} containers started with a GPU; the most containers"
                        + " each GPU was in at once: {1}", occupancy.started(), new java.util.TreeMap<>(occupancy.most()));
                closeQuietly(draKubelet);
                closeQuietly(kubelet);
                closeQuietly(api);
                if (layout != null) {
                    layout.removeSockets();
                }
                if (!stopped.isEmpty()) {
                    LOG.log(System.Logger.Level.INFO, "stopped: {0}", stopped);
                    progress.println("kgpu-sim: stopped (" + String.join(", ", stopped) + ")");
                }
            } finally {
                closed.countDown();
            }
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, MessageFormat.format("closing {0} failed", closeable.getClass().getSimpleName()), e);
        }
    }
}
