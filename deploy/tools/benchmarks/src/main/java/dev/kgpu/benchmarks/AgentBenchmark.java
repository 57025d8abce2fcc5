package dev.kgpu.benchmarks;

import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Empty;
import dev.kgpu.sim.kubelet.ResourceState;
import dev.kgpu.sim.runtime.SimulatedGpus;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * Issue 15's benchmark: each agent started as it ships, on the same simulated node, and measured from outside.
 * One harness, any number of subjects: kgpu's images ({@code deploy/tools/benchmarks/images-benchmark}) and, side by side, NVIDIA's
 * plugin and GFD built from their sources ({@code deploy/tools/upstream/run-nvidia-agents --benchmark}).
 *
 * <p>Start-up, {@code --runs} times per subject, each agent started alone:
 * <ol>
 *   <li>plugin: spawn → its device list at the kubelet simulator (registered, every GPU listed); RSS and CPU time
 *       then; 1 s later an XID 94 on GPU 0 written to the mock's events file → the kubelet's ListAndWatch shows it
 *       Unhealthy; then the first 2,000 Allocates of GPU 1 from a kubelet-side gRPC client on the plugin's socket
 *       (connected first, as the kubelet's is);</li>
 *   <li>discovery one-shot: exec → the labels file written (file sink / {@code --output-file}) → exit, peak RSS;</li>
 *   <li>discovery daemon: start → labels written, RSS;</li>
 *   <li>exporter: start → {@code /q/health/ready} UP (its first collection served), RSS;</li>
 *   <li>validator driver one-shot (kgpu's, when its image is there): exec → exited 0 with {@code driver-ready} written,
 *       peak RSS.</li>
 * </ol>
 * Then the soak: every subject's plugin, discovery daemon and exporter started afresh and kept at work together for
 * {@code --soak} seconds (Allocates spread evenly, {@code --scrapes-per-second} of {@code /metrics}, discovery's own
 * pass a minute); RSS every minute and at the end, and the CPU time each used.
 *
 * <p>Times are wall-clock from spawning the agent's sandbox, so a loaded machine stretches them: the machine's load
 * average is printed beside them, and the CPU time each agent used is printed too, which load stretches far less.
 */
public final class AgentBenchmark {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final Duration XID_SETTLE = Duration.ofSeconds(1);
    private static final int FIRST_ALLOCATES = 2_000;
    private static final int XID = 94;
    /** How long a training run's JVM may take to write its AOT configuration after SIGTERM. */
    private static final Duration TRAINING_EXIT = Duration.ofMinutes(5);

    private final BenchOptions options;
    private final Results recorded = new Results();
    /** Where figures go: {@link #recorded}, or a scratch one during the warm-up run. */
    private Results results = recorded;
    private final PrintStream out;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final UnixSocketTransport transport = new UnixSocketTransport("bench-kubelet", 1);

    private AgentBenchmark(BenchOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public static void main(String[] args) {
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            System.out.print(BenchOptions.USAGE);
            System.exit(0);
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            e.getMessage().lines().forEach(line -> System.err.println("benchmark: " + line));
            System.exit(2);
            return;
        }
        try {
            new AgentBenchmark(options, System.out).run();
            System.exit(0);
        } catch (BenchmarkException e) {
            System.err.println("benchmark: " + e.getMessage());
            System.exit(1);
        }
    }

    private void run() {
        describeMachine();
        List<Subject> subjects = new ArrayList<>();
        Path mock = options.root().resolve("nvml-ffm/nvml/target/mock/libnvidia-ml.so.1");
        if (!Files.isRegularFile(mock)) {
            throw new BenchmarkException(mock + " is missing: build kgpu first (./mvnw -B -q -pl deploy/tools/benchmarks -am package -DskipTests)");
        }
        if (options.kgpuRootfs().isEmpty() && !Files.isRegularFile(options.kgpuImages().resolve("index.json"))) {
            throw new BenchmarkException("--kgpu-images was '" + options.kgpuImages() + "' but it is no OCI layout (no index.json):"
                    + " build the images first (deploy/release/images/build-images plugin discovery exporter)");
        }
        KgpuImages.delete(options.workDir());
        KgpuImages kgpu = options.kgpuRootfs()
                .map(folder -> KgpuImages.inRootfs(options.root(), folder, options.variant()))
                .orElseGet(() -> KgpuImages.unpack(options.root(), options.kgpuImages(), options.workDir().resolve("images"),
                        options.variant()));
        subjects.add(kgpu);
        if (options.variant().training().isPresent()) {
            train(kgpu, SimulatedGpus.read(mock, options.profile()));
            return;
        }
        options.kgpuJvmImages().ifPresent(layout -> subjects.add(KgpuImages.unpack(options.root(), layout,
                options.workDir().resolve("images-2"), options.variant())));
        options.nvidiaBin().ifPresent(bin -> subjects.add(new NvidiaAgents(bin, options.nvidiaVersion())));
        subjects.forEach(recorded::subject);
        SimulatedGpus gpus = SimulatedGpus.read(mock, options.profile());
        Map<Subject, BenchNode> nodes = new LinkedHashMap<>();
        try {
            for (Subject subject : subjects) {
                out.println("benchmark: " + subject.describe());
                nodes.put(subject, BenchNode.create(options.workDir().resolve(subject instanceof KgpuImages ? "kgpu" + nodes.size() : "nvidia"),
                        options.root(), gpus, options.profile()));
            }
            out.println("benchmark: node " + gpus.describe() + "; " + options.runs() + " start-up runs per subject, then a "
                    + options.soak().toSeconds() + " s soak");
            // The kubelet simulator, the API server and the clients run in this JVM: one run, not recorded, warms
            // them up, so that no subject's first run pays for this JVM's own first gRPC calls and watches.
            results = new Results();
            startUp(subjects.getFirst(), nodes.get(subjects.getFirst()), 0);
            results = recorded;
            for (Subject subject : subjects) {
                for (int run = 1; run <= options.runs(); run++) {
                    startUp(subject, nodes.get(subject), run);
                }
            }
            results.machine("load_average_after_start_up", Results.loadAverage());
            if (!options.soak().isZero()) {
                soak(nodes);
            }
        } finally {
            nodes.values().forEach(BenchNode::close);
            transport.close();
        }
        results.machine("load_average_at_end", Results.loadAverage());
        report();
    }

    // ------------------------------------------------------------------------------------------------------------
    // start-up

    private void startUp(Subject subject, BenchNode node, int run) {
        String load = Results.loadAverage();
        StringBuilder line = new StringBuilder(run == 0
                ? String.format(Locale.ROOT, "benchmark: %s warm-up run, not recorded (load %s):", subject.name(), load)
                : String.format(Locale.ROOT, "benchmark: %s run %d/%d (load %s):", subject.name(), run, options.runs(), load));
        if (subject.runs(Role.PLUGIN)) {
            try (AgentRun plugin = start(subject, node, Role.PLUGIN, run)) {
                ResourceState listed = awaitRegistered(plugin, node);
                double ready = seconds(plugin.since(listed.updatedAt()));
                results.add(subject, Figure.PLUGIN_READY, ready);
                recordUse(subject, plugin, Figure.PLUGIN_RSS_READY, Figure.PLUGIN_CPU_READY);
                line.append(String.format(Locale.ROOT, " plugin %.2f s %d MiB;", ready, mib(plugin.rssKib())));
                checkAotCache(subject, plugin);
                LockSupport.parkNanos(XID_SETTLE.toNanos());
                String victim = node.gpuUuids().getFirst();
                Instant written = node.injectXid(victim, XID);
                ResourceState down = awaitKubelet(plugin, node, r -> r.unhealthyIds().contains(victim), "GPU 0 Unhealthy");
                double xid = Duration.between(written, down.updatedAt()).toNanos() / 1e6;
                results.add(subject, Figure.XID, xid);
                long[] allocates = allocate(node, down.endpoint(), FIRST_ALLOCATES);
                results.add(subject, Figure.ALLOCATE_P50, Results.percentileMillis(allocates, 50));
                results.add(subject, Figure.ALLOCATE_P99, Results.percentileMillis(allocates, 99));
                results.add(subject, Figure.ALLOCATE_MAX, Results.percentileMillis(allocates, 100));
                results.add(subject, Figure.PLUGIN_RSS_ALLOCATED, mib(plugin.rssKib()));
                line.append(String.format(Locale.ROOT, " XID %.1f ms; Allocate p50 %.3f p99 %.2f ms;", xid,
                        Results.percentileMillis(allocates, 50), Results.percentileMillis(allocates, 99)));
            }
        }
        if (subject.runs(Role.DISCOVERY_ONESHOT)) {
            try (Labels labels = labels(subject, node, "oneshot-" + run);
                 AgentRun oneshot = start(subject, node, Role.DISCOVERY_ONESHOT, run, labels.file())) {
                oneshot.await("labels written", TIMEOUT, labels::written);
                Duration written = labels.after(oneshot);
                OptionalLong cpu = oneshot.cpuMillis();
                AgentRun.Exit exit = oneshot.awaitExit(TIMEOUT);
                if (exit.status() != 0) {
                    throw new BenchmarkException(subject.name() + "'s discovery one-shot exited " + exit.status());
                }
                results.add(subject, Figure.ONESHOT_LABELS, seconds(written));
                results.add(subject, Figure.ONESHOT_EXIT, seconds(exit.after()));
                results.add(subject, Figure.ONESHOT_PEAK_RSS, exit.peakRssKib() / 1024.0);
                cpu.ifPresent(ms -> results.add(subject, Figure.ONESHOT_CPU, ms / 1000.0));
                line.append(String.format(Locale.ROOT, " one-shot %.2f s %d MiB;", seconds(written), exit.peakRssKib() / 1024));
            }
        }
        if (subject.runs(Role.DISCOVERY_DAEMON)) {
            try (AgentRun daemon = startDaemon(subject, node, run)) {
                line.append(String.format(Locale.ROOT, " daemon %.2f s %d MiB;",
                        results.last(subject, Figure.DAEMON_READY), mib(daemon.rssKib())));
            }
        }
        if (subject.runs(Role.EXPORTER)) {
            try (AgentRun exporter = startExporter(subject, node, run)) {
                line.append(String.format(Locale.ROOT, " exporter %.2f s %d MiB;",
                        results.last(subject, Figure.EXPORTER_READY), mib(exporter.rssKib())));
            }
        }
        if (subject.runs(Role.VALIDATOR_DRIVER)) {
            Path verdict = node.freshDriverVerdict();
            try (AgentRun driver = start(subject, node, Role.VALIDATOR_DRIVER, run)) {
                AgentRun.Exit exit = driver.awaitExit(TIMEOUT);
                if (exit.status() != 0 || !Files.isRegularFile(verdict)) {
                    throw new BenchmarkException(subject.name() + "'s validator driver one-shot exited " + exit.status()
                            + (Files.isRegularFile(verdict) ? "" : " without writing " + verdict) + "; its log: "
                            + log(subject, node, Role.VALIDATOR_DRIVER, run));
                }
                results.add(subject, Figure.VALIDATOR_DRIVER_EXIT, seconds(exit.after()));
                results.add(subject, Figure.VALIDATOR_DRIVER_PEAK_RSS, exit.peakRssKib() / 1024.0);
                driver.cpuMillis().ifPresent(ms -> results.add(subject, Figure.VALIDATOR_DRIVER_CPU, ms / 1000.0));
                line.append(String.format(Locale.ROOT, " validator driver %.2f s %d MiB;", seconds(exit.after()), exit.peakRssKib() / 1024));
            }
        }
        out.println(line);
    }

    private AgentRun startDaemon(Subject subject, BenchNode node, int run) {
        try (Labels labels = labels(subject, node, "daemon-" + run)) {
            AgentRun daemon = start(subject, node, Role.DISCOVERY_DAEMON, run, labels.file());
            try {
                daemon.await("labels written", TIMEOUT, labels::written);
                results.add(subject, Figure.DAEMON_READY, seconds(labels.after(daemon)));
                recordUse(subject, daemon, Figure.DAEMON_RSS_READY, Figure.DAEMON_CPU_READY);
                checkAotCache(subject, daemon);
                return daemon;
            } catch (RuntimeException e) {
                daemon.close();
                throw e;
            }
        }
    }

    /**
     * Where a discovery run's labels go and how their arrival is seen: a watch on a fresh Node (kgpu) or the feature
     * file appearing (GFD, which writes it whole through a rename).
     */
    private interface Labels extends AutoCloseable {
        Path file();

        boolean written();

        /** From the agent's spawn to its labels' arrival. */
        Duration after(AgentRun run);

        @Override
        void close();
    }

    private Labels labels(Subject subject, BenchNode node, String name) {
        Path file = node.labelsFile(name);
        int gpus = node.gpuUuids().size();
        if (subject.labelsOnNode()) {
            BenchNode.LabelWatch watch = node.freshNode();
            return new Labels() {
                public Path file() {
                    return file;
                }

                public boolean written() {
                    return watch.labelledAt().isPresent();
                }

                public Duration after(AgentRun run) {
                    return run.since(watch.labelledAt().orElseThrow());
                }

                public void close() {
                    watch.close();
                }
            };
        }
        return new Labels() {
            private volatile Duration seen;

            public Path file() {
                return file;
            }

            public boolean written() {
                return Files.exists(file);
            }

            public Duration after(AgentRun run) {
                if (seen == null) {
                    seen = run.elapsed();
                    try {
                        if (!Files.readString(file, StandardCharsets.UTF_8).contains("nvidia.com/gpu.count=" + gpus)) {
                            throw new BenchmarkException("the labels in " + file + " lack nvidia.com/gpu.count=" + gpus);
                        }
                    } catch (IOException e) {
                        throw new BenchmarkException("could not read " + file + ": " + e.getMessage(), e);
                    }
                }
                return seen;
            }

            public void close() {
            }
        };
    }

    private AgentRun startExporter(Subject subject, BenchNode node, int run) {
        AgentRun exporter = start(subject, node, Role.EXPORTER, run);
        try {
            exporter.await("/q/health/ready UP", TIMEOUT, () -> get(exporter.port(), "/q/health/ready", 10) == 200);
            results.add(subject, Figure.EXPORTER_READY, seconds(exporter.elapsed()));
            recordUse(subject, exporter, Figure.EXPORTER_RSS_READY, Figure.EXPORTER_CPU_READY);
            checkAotCache(subject, exporter);
            return exporter;
        } catch (RuntimeException e) {
            exporter.close();
            throw e;
        }
    }

    private AgentRun start(Subject subject, BenchNode node, Role role, int run) {
        return start(subject, node, role, run, null);
    }

    private AgentRun start(Subject subject, BenchNode node, Role role, int run, Path labels) {
        int port = freePort();
        options.pageCache().prepare(subject.files(role));
        return AgentRun.start(role, subject.launch(role, node, port, labels), log(subject, node, role, run), port);
    }

    private static Path log(Subject subject, BenchNode node, Role role, int run) {
        Path logs = node.root().resolve("logs");
        try {
            Files.createDirectories(logs);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return logs.resolve(role.name().toLowerCase(Locale.ROOT).replace('_', '-') + "-" + run + ".log");
    }

    private ResourceState awaitRegistered(AgentRun plugin, BenchNode node) {
        int before = node.kubelet().resource(BenchNode.RESOURCE).map(ResourceState::registrations).orElse(0);
        int gpus = node.gpuUuids().size();
        return awaitKubelet(plugin, node, r -> r.registrations() > before && r.connected() && r.allocatable() == gpus,
                "registered with every GPU listed");
    }

    /** Waits for the kubelet simulator's view of the GPU resource to satisfy {@code condition}; fails early if the plugin exits. */
    private static ResourceState awaitKubelet(AgentRun plugin, BenchNode node, Predicate<ResourceState> condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            try {
                return node.kubelet().awaitResource(BenchNode.RESOURCE, condition, Duration.ofMillis(200));
            } catch (IllegalStateException notYet) {
                if (!plugin.alive()) {
                    throw new BenchmarkException("the plugin exited before it was " + what);
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new BenchmarkException("the plugin was not " + what + " within " + TIMEOUT.toSeconds() + " s: " + notYet.getMessage());
                }
            }
        }
    }

    /** {@code count} blocking Allocates of GPU 1 on the plugin's socket, each timed, in nanoseconds. */
    private long[] allocate(BenchNode node, String endpoint, int count) {
        var channel = transport.dial(node.layout().devicePlugins().resolve(endpoint));
        try {
            DevicePluginGrpc.DevicePluginBlockingStub stub = DevicePluginGrpc.newBlockingStub(channel);
            stub.getDevicePluginOptions(Empty.getDefaultInstance()); // connected, as the kubelet's client is
            AllocateRequest request = allocateRequest(node);
            long[] samples = new long[count];
            for (int i = 0; i < count; i++) {
                long start = System.nanoTime();
                stub.allocate(request);
                samples[i] = System.nanoTime() - start;
            }
            return samples;
        } finally {
            UnixSocketTransport.close(channel);
        }
    }

    private static AllocateRequest allocateRequest(BenchNode node) {
        return AllocateRequest.newBuilder().addContainerRequests(
                ContainerAllocateRequest.newBuilder().addDevicesIds(node.gpuUuids().get(1))).build();
    }

    private void recordUse(Subject subject, AgentRun run, Figure rss, Figure cpu) {
        results.add(subject, rss, mib(run.rssKib()));
        run.cpuMillis().ifPresent(ms -> results.add(subject, cpu, ms / 1000.0));
    }

    private void checkAotCache(Subject subject, AgentRun run) {
        if (subject instanceof KgpuImages images && images.jvm() && !run.maps(KgpuImages.AOT_CACHE)) {
            results.note("the " + run.role().label() + " of " + subject.name() + " did not map " + KgpuImages.AOT_CACHE
                    + " (its AOT cache) in one run at least");
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // training

    /**
     * {@code --train}: each agent does its work once while the JVM records its AOT configuration (what it loaded and
     * linked, and the method profiles of what ran hot), then the cache is created from it in the image's root
     * filesystem. The work is the benchmark's, with more of each hot path and the calls a kubelet and Prometheus
     * make besides: the plugin registers, answers GetPreferredAllocation and Allocate for pods, marks a GPU Unhealthy
     * after an XID and answers 2,000 Allocates; discovery labels the Node; the exporter collects every second and
     * serves 1,000 scrapes over ten seconds, an XID among them; each answers its probes and metrics.
     */
    private void train(KgpuImages kgpu, SimulatedGpus gpus) {
        results = new Results();
        Path training = options.variant().training().orElseThrow();
        try (BenchNode node = BenchNode.create(options.workDir().resolve("training"), options.root(), gpus, options.profile())) {
            out.println("benchmark: training the AOT caches of kgpu's images into " + training);
            if (kgpu.runs(Role.PLUGIN)) {
                trainPlugin(kgpu, node);
            }
            if (kgpu.runs(Role.DISCOVERY_DAEMON)) {
                try (AgentRun daemon = startDaemon(kgpu, node, 0)) {
                    probes(daemon, "/q/metrics");
                    daemon.stop(TRAINING_EXIT);
                }
            }
            if (kgpu.runs(Role.EXPORTER)) {
                trainExporter(kgpu, node);
            }
        }
        for (String agent : kgpu.images().keySet()) {
            long size = kgpu.createAotCache(agent, training.resolve(agent).resolve("create.log"));
            out.printf(Locale.ROOT, "benchmark: %s/%s/app.aot: %.1f MiB%n", training, agent, size / 1048576.0);
        }
    }

    private void trainPlugin(KgpuImages kgpu, BenchNode node) {
        try (AgentRun plugin = start(kgpu, node, Role.PLUGIN, 0)) {
            awaitRegistered(plugin, node);
            probes(plugin, "/q/metrics");
            for (int i = 0; i < 20; i++) {
                String pod = "training-" + i;
                node.kubelet().admit(dev.kgpu.sim.kubelet.PodSpec.of(pod, BenchNode.RESOURCE, 1 + i % 2));
                node.kubelet().release(pod);
            }
            String victim = node.gpuUuids().getFirst();
            node.injectXid(victim, XID);
            ResourceState down = awaitKubelet(plugin, node, r -> r.unhealthyIds().contains(victim), "GPU 0 Unhealthy");
            allocate(node, down.endpoint(), FIRST_ALLOCATES);
            probes(plugin, "/q/metrics");
            plugin.stop(TRAINING_EXIT);
        }
    }

    private void trainExporter(KgpuImages kgpu, BenchNode node) {
        try (AgentRun exporter = startExporter(kgpu, node, 0)) {
            long start = System.nanoTime();
            for (int i = 0; i < 500; i++) {
                parkUntil(start + i * TimeUnit.MILLISECONDS.toNanos(20));
                scrape(exporter.port());
                get(exporter.port(), "/metrics", 5_000);
                if (i == 250) {
                    node.injectXid(node.gpuUuids().get(1), 48);
                }
            }
            probes(exporter, "/q/metrics");
            exporter.stop(TRAINING_EXIT);
        }
    }

    /** The kubelet's probes and a scrape of its own metrics, a few times. */
    private void probes(AgentRun agent, String metrics) {
        for (int i = 0; i < 5; i++) {
            get(agent.port(), "/q/health/ready", 5_000);
            get(agent.port(), "/q/health/live", 5_000);
            get(agent.port(), metrics, 5_000);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // soak

    private record Working(Subject subject, BenchNode node, AgentRun plugin, String endpoint, AgentRun daemon, AgentRun exporter,
                           Map<AgentRun, Long> cpuAtStart) {
        List<AgentRun> agents() {
            List<AgentRun> all = new ArrayList<>();
            for (AgentRun run : new AgentRun[]{plugin, daemon, exporter}) {
                if (run != null) {
                    all.add(run);
                }
            }
            return all;
        }
    }

    private void soak(Map<Subject, BenchNode> nodes) {
        int soakRun = options.runs() + 1;
        List<Working> working = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        try {
            for (var entry : nodes.entrySet()) {
                Subject subject = entry.getKey();
                BenchNode node = entry.getValue();
                AgentRun plugin = null;
                String endpoint = null;
                AgentRun daemon = null;
                AgentRun exporter = null;
                if (subject.runs(Role.PLUGIN)) {
                    plugin = start(subject, node, Role.PLUGIN, soakRun);
                    endpoint = awaitRegistered(plugin, node).endpoint();
                }
                if (subject.runs(Role.DISCOVERY_DAEMON)) {
                    daemon = startSoakDaemon(subject, node, soakRun);
                }
                if (subject.runs(Role.EXPORTER)) {
                    exporter = startSoakExporter(subject, node, soakRun);
                }
                Map<AgentRun, Long> cpu = new LinkedHashMap<>();
                Working w = new Working(subject, node, plugin, endpoint, daemon, exporter, cpu);
                w.agents().forEach(a -> cpu.put(a, a.cpuMillis().orElse(0)));
                working.add(w);
            }
            long start = System.nanoTime();
            long end = start + options.soak().toNanos();
            out.println("benchmark: soak of " + options.soak().toSeconds() + " s (load " + Results.loadAverage() + ")");
            for (Working w : working) {
                sample(w, 0);
                if (w.plugin() != null) {
                    workers.add(Thread.ofPlatform().name("soak-allocate").start(() -> soakAllocates(w, start, end)));
                }
                if (w.exporter() != null) {
                    workers.add(Thread.ofPlatform().name("soak-scrape").start(() -> soakScrapes(w, start, end)));
                }
            }
            for (int minute = 1; System.nanoTime() < end; minute++) {
                long at = start + TimeUnit.MINUTES.toNanos(minute);
                parkUntil(Math.min(at, end));
                long second = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                for (Working w : working) {
                    for (AgentRun agent : w.agents()) {
                        if (!agent.alive()) {
                            throw new BenchmarkException("the " + agent.role().label() + " of " + w.subject().name()
                                    + " exited during the soak");
                        }
                    }
                    sample(w, second);
                }
                out.println("benchmark: soak " + second + " s (load " + Results.loadAverage() + ")");
            }
            for (Thread worker : workers) {
                worker.join();
            }
            for (Working w : working) {
                if (w.plugin() != null) {
                    results.add(w.subject(), Figure.SOAK_PLUGIN_RSS, mib(w.plugin().rssKib()));
                    cpuOver(w, w.plugin(), Figure.SOAK_PLUGIN_CPU);
                }
                if (w.daemon() != null) {
                    results.add(w.subject(), Figure.SOAK_DAEMON_RSS, mib(w.daemon().rssKib()));
                    cpuOver(w, w.daemon(), Figure.SOAK_DAEMON_CPU);
                }
                if (w.exporter() != null) {
                    results.add(w.subject(), Figure.SOAK_EXPORTER_RSS, mib(w.exporter().rssKib()));
                    cpuOver(w, w.exporter(), Figure.SOAK_EXPORTER_CPU);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchmarkException("interrupted during the soak");
        } finally {
            workers.forEach(Thread::interrupt);
            working.forEach(w -> w.agents().forEach(AgentRun::close));
        }
    }

    private AgentRun startSoakDaemon(Subject subject, BenchNode node, int run) {
        try (Labels labels = labels(subject, node, "soak")) {
            AgentRun daemon = start(subject, node, Role.DISCOVERY_DAEMON, run, labels.file());
            daemon.await("labels written", TIMEOUT, labels::written);
            return daemon;
        }
    }

    private AgentRun startSoakExporter(Subject subject, BenchNode node, int run) {
        AgentRun exporter = start(subject, node, Role.EXPORTER, run);
        exporter.await("/q/health/ready UP", TIMEOUT, () -> get(exporter.port(), "/q/health/ready", 10) == 200);
        return exporter;
    }

    private void soakAllocates(Working w, long start, long end) {
        var channel = transport.dial(w.node().layout().devicePlugins().resolve(w.endpoint()));
        try {
            DevicePluginGrpc.DevicePluginBlockingStub stub = DevicePluginGrpc.newBlockingStub(channel);
            AllocateRequest request = allocateRequest(w.node());
            long period = (end - start) / options.allocates();
            long[] samples = new long[options.allocates()];
            for (int i = 0; i < samples.length && !Thread.currentThread().isInterrupted(); i++) {
                parkUntil(start + i * period);
                long before = System.nanoTime();
                stub.allocate(request);
                samples[i] = System.nanoTime() - before;
            }
            results.add(w.subject(), Figure.SOAK_ALLOCATE_P50, Results.percentileMillis(samples, 50));
            results.add(w.subject(), Figure.SOAK_ALLOCATE_P99, Results.percentileMillis(samples, 99));
        } catch (RuntimeException e) {
            results.note(w.subject().name() + ": the soak's Allocates stopped: " + e);
        } finally {
            UnixSocketTransport.close(channel);
        }
    }

    private void soakScrapes(Working w, long start, long end) {
        int port = w.exporter().port();
        long period = TimeUnit.SECONDS.toNanos(1) / options.scrapesPerSecond();
        List<Long> samples = new ArrayList<>();
        int failed = 0;
        for (long at = start; at < end && !Thread.currentThread().isInterrupted(); at += period) {
            parkUntil(at);
            long before = System.nanoTime();
            int status = scrape(port);
            samples.add(System.nanoTime() - before);
            if (status != 200) {
                failed++;
            }
        }
        long[] nanos = samples.stream().mapToLong(Long::longValue).toArray();
        if (nanos.length > 0) {
            results.add(w.subject(), Figure.SOAK_SCRAPE_P50, Results.percentileMillis(nanos, 50));
            results.add(w.subject(), Figure.SOAK_SCRAPE_P99, Results.percentileMillis(nanos, 99));
        }
        if (failed > 0) {
            results.note(w.subject().name() + ": " + failed + " of " + nanos.length + " scrapes did not answer 200");
        }
    }

    private void sample(Working w, long second) {
        Map<String, Object> point = new LinkedHashMap<>();
        point.put("second", second);
        point.put("load_average", Results.loadAverage());
        w.agents().forEach(a -> point.put(a.role().name().toLowerCase(Locale.ROOT) + "_rss_mib", mib(a.rssKib())));
        results.timeline(w.subject().name(), point);
    }

    private void cpuOver(Working w, AgentRun agent, Figure figure) {
        agent.cpuMillis().ifPresent(ms -> results.add(w.subject(), figure, (ms - w.cpuAtStart().get(agent)) / 1000.0));
    }

    // ------------------------------------------------------------------------------------------------------------
    // report

    private void describeMachine() {
        results.machine("date", Instant.now().toString());
        results.machine("cpus", Runtime.getRuntime().availableProcessors());
        results.machine("cpu_model", firstLine(Path.of("/proc/cpuinfo"), "model name"));
        results.machine("kernel", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        results.machine("commit", git("rev-parse", "--short", "HEAD") + (git("status", "--porcelain", "--untracked-files=no").isBlank() ? "" : " (with local changes)"));
        results.machine("load_average_at_start", Results.loadAverage());
        results.setting("profile", options.profile());
        results.setting("runs", options.runs());
        results.setting("soak_seconds", options.soak().toSeconds());
        results.setting("allocates_in_soak", options.allocates());
        results.setting("scrapes_per_second", options.scrapesPerSecond());
        results.setting("page_cache", options.pageCache().option());
    }

    private void report() {
        StringBuilder text = new StringBuilder("\n");
        try {
            results.writeJson(options.json());
        } catch (IOException e) {
            throw new BenchmarkException("could not write " + options.json() + ": " + e.getMessage(), e);
        }
        text.append(String.format(Locale.ROOT, "Agents on a simulated node (%s), %d start-up runs per subject (median, range), "
                + "then a %d s soak (%d Allocates, %d scrapes/s, discovery's pass a minute; all subjects at once); each agent's"
                + " own files %s in the page cache when it starts (--page-cache=%s)%n",
                options.profile(), options.runs(), options.soak().toSeconds(), options.allocates(), options.scrapesPerSecond(),
                switch (options.pageCache()) {
                    case UNPACKED -> "written as an image's unpacking writes them";
                    case READ_IN -> "read in whole";
                    case EVICTED -> "dropped";
                    case AS_LEFT -> "as the run before left them";
                }, options.pageCache().option()));
        text.append(describe()).append('\n');
        text.append(results.table());
        results.notes().forEach(note -> text.append("\nnote: ").append(note));
        text.append("\nJSON: ").append(options.json()).append('\n');
        out.print(text);
    }

    private String describe() {
        StringBuilder out = new StringBuilder();
        try {
            Map<?, ?> json = new com.fasterxml.jackson.databind.ObjectMapper().readValue(options.json().toFile(), Map.class);
            Map<?, ?> machine = (Map<?, ?>) json.get("machine");
            out.append(String.format(Locale.ROOT, "Machine: %s CPUs (%s), %s; commit %s; %s%n", machine.get("cpus"),
                    machine.get("cpu_model"), machine.get("kernel"), machine.get("commit"), machine.get("date")));
            out.append(String.format(Locale.ROOT, "Load average (1/5/15 min): %s at the start, %s after the start-up runs, %s at the end%n",
                    machine.get("load_average_at_start"), machine.get("load_average_after_start_up"), machine.get("load_average_at_end")));
            Map<?, ?> subjects = (Map<?, ?>) json.get("subjects");
            subjects.forEach((name, s) -> out.append(String.format(Locale.ROOT, "%s: %s%n", name, ((Map<?, ?>) s).get("runs"))));
        } catch (IOException e) {
            out.append("(").append(e.getMessage()).append(")\n");
        }
        return out.toString();
    }

    // ------------------------------------------------------------------------------------------------------------
    // helpers

    /** A scrape of {@code /metrics} as Prometheus sends it: OpenMetrics preferred, gzip accepted. */
    private int scrape(int port) {
        return get(port, "/metrics", 5_000, "Accept", PROMETHEUS_ACCEPT, "Accept-Encoding", "gzip");
    }

    private static final String PROMETHEUS_ACCEPT = "application/openmetrics-text;version=1.0.0;q=0.5,"
            + "application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2";

    /** HTTP/1.1 GET on the loopback, as the kubelet probes and Prometheus scrape; the status, or -1 without an answer. */
    private int get(int port, String path, long timeoutMillis, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofMillis(Math.max(timeoutMillis, 1000))).GET();
        if (headers.length > 0) {
            builder.headers(headers);
        }
        HttpRequest request = builder.build();
        try {
            int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status != 200 && timeoutMillis < 1000) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
            }
            return status;
        } catch (IOException e) {
            if (timeoutMillis < 1000) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
            }
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static void parkUntil(long nanoTime) {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0 && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(left);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static double seconds(Duration duration) {
        return duration.toNanos() / 1e9;
    }

    private static long mib(OptionalLong kib) {
        return kib.orElse(0) / 1024;
    }

    private static String firstLine(Path file, String key) {
        try (var lines = Files.lines(file)) {
            return lines.filter(l -> l.startsWith(key)).map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst().orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private String git(String... args) {
        List<String> command = new ArrayList<>(List.of("git", "-C", options.root().toString()));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return process.waitFor() == 0 ? output : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
