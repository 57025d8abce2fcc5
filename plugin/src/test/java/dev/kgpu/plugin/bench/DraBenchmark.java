package dev.kgpu.plugin.bench;

import dev.kgpu.agent.testing.PackagedAgent;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.plugin.devices.DeviceSource;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.dra.DraNames;
import dev.kgpu.plugin.dra.NodeDevices;
import dev.kgpu.plugin.dra.ResourcePool;
import dev.kgpu.plugin.dra.kubernetes.KubernetesResourceSlices;
import dev.kgpu.plugin.health.HealthPolicy;
import dev.kgpu.plugin.nvml.MigCapabilities;
import dev.kgpu.plugin.nvml.NvmlDeviceSource;
import dev.kgpu.plugin.testing.Await;
import dev.kgpu.plugin.testing.DraFixtures;
import dev.kgpu.plugin.testing.MockNvmlPlugin;
import dev.kgpu.sim.apiserver.TestApiServer;
import dev.kgpu.sim.pluginwatcher.DraClaim;
import dev.kgpu.sim.pluginwatcher.DraClaimResult;
import dev.kgpu.sim.pluginwatcher.DraPluginClient;
import dev.kgpu.sim.pluginwatcher.PluginRegistration;
import dev.kgpu.sim.pluginwatcher.PluginWatcher;
import dev.kgpu.sim.pluginwatcher.PluginWatcherListener;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The DRA driver's benchmark harness, run with the plugin's ({@code ./mvnw -B -Pbench -pl plugin -am
 * integration-test -DskipTests}):
 * <ol>
 *   <li>the packaged plugin started as a process with only the DRA driver, until the kubelet's plugin watcher has its
 *       {@code GetInfo} answered ({@link #processStartToRegistered});</li>
 *   <li>NodePrepareResources of one claim over the Unix socket, through the kubelet's DRA client (dgx-h100, a
 *       simulated driver root, the API test server): a new claim (GET the claim, write its CDI spec, write the
 *       checkpoint), the same claim again (from the checkpoint), and NodeUnprepareResources;</li>
 *   <li>time from an injected XID to the ResourceSlice without that GPU, seen through a watch on the API server;</li>
 *   <li>one sync of the node's ResourceSlices for 8 GPUs (dgx-h100) and 256 GPUs (large-256, two slices): the
 *       first publication (create), and an update after one device left (generation + 1, every slice written).</li>
 * </ol>
 * Results go to stdout and {@code target/bench/dra-bench.md}; no thresholds.
 */
public final class DraBenchmark {

    static final String NODE = "bench-node";
    private static final int PREPARE_WARMUP = 100;
    private static final int PREPARE_ROUNDS = 500;
    private static final int XID_ROUNDS = 40;
    private static final int SYNC_ROUNDS = 30;

    private static final int RESTART_ROUNDS = 20;
    private static final int START_ROUNDS = 5;
    private static final int PROCESS_START_ROUNDS = 10;

    /**
     * {@code restart}: only the start and kubelet-restart rows (a quick run); {@code prepare}: only the
     * NodePrepareResources rows; no argument: every row.
     */
    public static void main(String[] args) throws Exception {
        List<String> report = new ArrayList<>();
        report.add("| measurement | samples | p50 | p99 | max |");
        report.add("|---|---|---|---|---|");
        if (args.length > 0 && args[0].equals("cold-start")) {
            report.add(PluginBenchmark.row(COLD_START_ROW, processStartToRegistered()));
            System.out.println("Load average at the end: " + PluginBenchmark.loadAverage() + "\n");
            System.out.println(String.join("\n", report));
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("prepare")) {
            prepare(report);
            System.out.println("Load average at the end: " + PluginBenchmark.loadAverage() + "\n");
            System.out.println(String.join("\n", report));
            System.exit(0);
        }
        report.add(PluginBenchmark.row("plugin start (in-process, after the first) -> DRA driver registered (GetInfo"
                + " answered, NotifyRegistrationStatus)", startToRegistered()));
        if (Files.exists(Path.of("target/quarkus-app/quarkus-run.jar"))) {
            report.add(PluginBenchmark.row(COLD_START_ROW, processStartToRegistered()));
        }
        long[][] restart = kubeletRestart();
        report.add(PluginBenchmark.row("kubelet restart: slices deleted -> ResourceSlices back (watch)", restart[0]));
        report.add(PluginBenchmark.row("kubelet restart: plugin watcher started again, then slices deleted -> back", restart[1]));
        if (args.length > 0 && args[0].equals("restart")) {
            System.out.println(String.join("\n", report));
            System.exit(0);
        }
        prepare(report);
        report.add(PluginBenchmark.row("XID injected -> ResourceSlice without the GPU (watch event)", xidToSlice()));
        for (String profile : List.of("dgx-h100", "large-256")) {
            long[][] syncs = syncs(profile);
            report.add(PluginBenchmark.row("ResourceSlice publish, " + profile + ": first (create)", syncs[0]));
            report.add(PluginBenchmark.row("ResourceSlice publish, " + profile + ": one device left (update)", syncs[1]));
        }
        StringBuilder out = new StringBuilder();
        out.append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs, Java ")
                .append(System.getProperty("java.version")).append(", ").append(Instant.now()).append('\n');
        out.append("Load average at the end: ").append(PluginBenchmark.loadAverage()).append("\n\n");
        report.forEach(line -> out.append(line).append('\n'));
        System.out.println(out);
        Path file = Path.of("target/bench/dra-bench.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, out.toString());
        System.exit(0);
    }

    /**
     * {@code -Dbench.aot-cache=<app.aot>}: the JVM rounds of the cold-start row start with that Java AOT cache, as the
     * JVM image starts (given to the {@code java} launcher through {@code JDK_JAVA_OPTIONS}, with
     * {@code -XX:AOTMode=on}: a cache that cannot be mapped fails the round instead of being skipped); the package's
     * own {@code target/quarkus-app/app.aot} is the one its {@code PackagedPluginIT} run trained.
     */
    static final String AOT_CACHE = System.getProperty("bench.aot-cache", "");

    /** The row names what ran: the native executable when {@code native.image.path} names one, else the jar. */
    static final String COLD_START_ROW = "packaged plugin ("
            + (!System.getProperty(PackagedAgent.NATIVE_IMAGE_PATH, "").isBlank() ? "native executable"
                    : AOT_CACHE.isBlank() ? "java @jvm.options -jar quarkus-run.jar"
                    : "java @jvm.options -XX:AOTCache=app.aot -jar quarkus-run.jar")
            + "), DRA only: process start -> GetInfo answered (registered, NotifyRegistrationStatus sent)";

    /**
     * Nanoseconds from starting the packaged plugin as a process ({@link PackagedAgent#command()}: the images' JVM
     * options, {@code target/quarkus-app}; the native executable with {@code -Dnative.image.path=<runner>}), with only the DRA driver ({@code KGPU_KUBELET_APIS=dra}, dgx-h100 on the
     * mock NVML, the API test server), to the kubelet's plugin watcher having its {@code GetInfo} answered and the
     * registration taken; each round a cold process, one unmeasured round first (the page cache).
     */
    static long[] processStartToRegistered() throws Exception {
        long[] samples = new long[PROCESS_START_ROUNDS];
        for (int i = -1; i < PROCESS_START_ROUNDS; i++) {
            Path work = Files.createTempDirectory("kgpu-dra-bench-process");
            BlockingQueue<Long> registered = new LinkedBlockingQueue<>();
            try (TestApiServer api = apiWithNode();
                 PluginWatcher watcher = PluginWatcher.start(work.resolve("plugins_registry"))) {
                watcher.addListener(new PluginWatcherListener() {
                    @Override
                    public void onRegistration(PluginRegistration registration) {
                        if (registration.registered()) {
                            registered.add(System.nanoTime());
                        }
                    }
                });
                Map<String, String> env = DraFixtures.packagedEnvironment(work, api, NODE, "dgx-h100");
                if (!AOT_CACHE.isBlank()) {
                    env.put("JDK_JAVA_OPTIONS", "-XX:AOTMode=on -XX:AOTCache=" + Path.of(AOT_CACHE).toAbsolutePath());
                }
                long start = System.nanoTime();
                try (PackagedAgent plugin = PackagedAgent.start(work.resolve("out"), env)) {
                    Long at = registered.poll(60, TimeUnit.SECONDS);
                    if (at == null) {
                        throw new IllegalStateException("the packaged plugin did not register within 60 s: " + plugin.output());
                    }
                    if (i >= 0) {
                        samples[i] = at - start;
                    }
                }
            }
        }
        return samples;
    }

    /** Nanoseconds from starting the plugin in-process to the kubelet's watcher holding its registration. */
    static long[] startToRegistered() throws Exception {
        long[] samples = new long[START_ROUNDS];
        for (int i = -1; i < START_ROUNDS; i++) {
            Path work = Files.createTempDirectory("kgpu-dra-bench-start");
            try (TestApiServer api = apiWithNode()) {
                long start = System.nanoTime();
                try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(work).profile("dgx-h100").dra(api, NODE).start()) {
                    plugin.pluginWatcher.await(() -> plugin.pluginWatcher.registrations().stream()
                            .anyMatch(PluginRegistration::registered), Duration.ofSeconds(60), "registered");
                    if (i >= 0) {
                        samples[i] = System.nanoTime() - start;
                    }
                }
            }
        }
        return samples;
    }

    /**
     * [wipe only, watcher restarted then wipe]: nanoseconds from the kubelet's deletion of the node's slices to the
     * API server holding all 8 devices again (polled every millisecond).
     */
    static long[][] kubeletRestart() throws Exception {
        Path work = Files.createTempDirectory("kgpu-dra-bench-restart");
        long[][] samples = new long[2][RESTART_ROUNDS];
        try (TestApiServer api = apiWithNode();
             MockNvmlPlugin plugin = MockNvmlPlugin.builder(work).profile("dgx-h100").dra(api, NODE).start()) {
            Await.until(() -> plugin.dra.status().slicesCurrent() && slices(api) == 8, Duration.ofSeconds(60), "published");
            plugin.pluginWatcher.close();
            PluginWatcher watcher = PluginWatcher.start(work.resolve("plugins_registry"));
            for (int i = 0; i < RESTART_ROUNDS; i++) {
                samples[0][i] = wipeUntilBack(api);
                watcher.close();
                watcher = PluginWatcher.start(work.resolve("plugins_registry"));
                samples[1][i] = wipeUntilBack(api);
            }
            watcher.close();
        }
        return samples;
    }

    private static long wipeUntilBack(TestApiServer api) throws InterruptedException {
        var resourceSlices = api.client().dynamicResourceAllocation().v1().resourcesSlices();
        long start = System.nanoTime();
        resourceSlices.list().getItems().forEach(s -> resourceSlices.resource(s).delete());
        while (slices(api) != 8) {
            if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(60)) {
                throw new IllegalStateException("the slices did not come back within 60 s");
            }
            Thread.sleep(1);
        }
        return System.nanoTime() - start;
    }

    static TestApiServer apiWithNode() {
        TestApiServer api = TestApiServer.start();
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        return api;
    }

    /**
     * The NodePrepareResources rows. Each round creates its claim in the API server (untimed), prepares it, prepares it
     * again, unprepares it, and deletes it (untimed): the API test server (fabric8's CRUD mock) answers a GET by
     * matching every object it stores, so claims left behind would make each GET slower than the one before, which a
     * real API server (a key lookup) does not. The last row times the client's GET of the round's claim alone, right
     * after the prepare: the part of a new claim's prepare that is the API server's. The claims' CDI specs go to a
     * tmpfs ({@code /dev/shm}) where there is one, as they go to {@code /var/run/cdi} on a node ({@code /run} is a
     * tmpfs on systemd's distributions); {@code -Dbench.cdi-root=disk} puts them beside the checkpoint instead.
     */
    static void prepare(List<String> report) throws Exception {
        Path work = Files.createTempDirectory("kgpu-dra-bench");
        Path root = DraFixtures.driverRoot(work.resolve("driver-root"), "dgx-h100");
        Path shm = Path.of("/dev/shm");
        boolean tmpfs = !"disk".equals(System.getProperty("bench.cdi-root")) && Files.isDirectory(shm)
                && Files.isWritable(shm);
        Path cdiRoot = tmpfs ? Files.createTempDirectory(shm, "kgpu-dra-bench-cdi") : work.resolve("cdi");
        report.add(0, "CDI root of the prepare rows: " + cdiRoot + (tmpfs ? " (tmpfs, as /var/run/cdi on a node)" : " (disk)")
                + "; checkpoint: " + work + "\n");
        try (TestApiServer api = apiWithNode();
             MockNvmlPlugin plugin = MockNvmlPlugin.builder(work).profile("dgx-h100").dra(api, NODE)
                     .env("CONTAINER_DRIVER_ROOT", root.toString()).env("NVIDIA_DRIVER_ROOT", root.toString())
                     .env("KGPU_PROC_ROOT", root.toString()).env("CDI_ROOT", cdiRoot.toString()).start()) {
            DraPluginClient client = plugin.draClient();
            var resourceClaims = api.client().dynamicResourceAllocation().v1().resourceClaims().inNamespace("bench");
            int total = PREPARE_WARMUP + PREPARE_ROUNDS;
            long[] first = new long[PREPARE_ROUNDS];
            long[] again = new long[PREPARE_ROUNDS];
            long[] unprepare = new long[PREPARE_ROUNDS];
            long[] get = new long[PREPARE_ROUNDS];
            for (int i = 0; i < total; i++) {
                ResourceClaim created = resourceClaims
                        .resource(new ResourceClaimBuilder().withNewMetadata().withNamespace("bench").withName("claim-" + i)
                                .endMetadata().withNewSpec().endSpec().withNewStatus().withNewAllocation().withNewDevices()
                                .addNewResult().withRequest("gpu").withDriver(DraNames.DRIVER).withPool(NODE)
                                .withDevice("gpu-" + (i % 8)).endResult().endDevices().endAllocation().endStatus().build())
                        .create();
                DraClaim claim = new DraClaim("bench", "claim-" + i, created.getMetadata().getUid());
                long start = System.nanoTime();
                DraClaimResult result = client.prepare(List.of(claim)).get(claim.uid());
                long prepared = System.nanoTime();
                client.prepare(List.of(claim));
                long repeated = System.nanoTime();
                client.unprepare(List.of(claim));
                long unprepared = System.nanoTime();
                resourceClaims.withName(claim.name()).get();
                long got = System.nanoTime();
                resourceClaims.withName(claim.name()).delete();
                if (!result.prepared()) {
                    throw new IllegalStateException("claim " + claim + " was not prepared: " + result.error());
                }
                if (i >= PREPARE_WARMUP) {
                    first[i - PREPARE_WARMUP] = prepared - start;
                    again[i - PREPARE_WARMUP] = repeated - prepared;
                    unprepare[i - PREPARE_WARMUP] = unprepared - repeated;
                    get[i - PREPARE_WARMUP] = got - unprepared;
                }
            }
            report.add(PluginBenchmark.row("NodePrepareResources, 1 claim, 1 GPU: new (API GET, CDI spec, checkpoint)", first));
            report.add(PluginBenchmark.row("NodePrepareResources, the same claim again (checkpoint)", again));
            report.add(PluginBenchmark.row("NodeUnprepareResources, 1 claim", unprepare));
            report.add(PluginBenchmark.row("the API test server's GET of the claim alone (fabric8 client, same JVM)", get));
        }
    }

    /** Nanoseconds from injecting an XID to the watch event of a slice without that GPU. */
    static long[] xidToSlice() throws Exception {
        Path work = Files.createTempDirectory("kgpu-dra-bench-xid");
        BlockingQueue<Long> updates = new LinkedBlockingQueue<>();
        String[] victim = new String[1];
        try (TestApiServer api = apiWithNode();
             MockNvmlPlugin plugin = MockNvmlPlugin.builder(work).profile("dgx-h100").dra(api, NODE).start()) {
            Await.until(() -> plugin.dra.status().slicesCurrent(), Duration.ofSeconds(60), "slices published");
            try (var watch = api.client().dynamicResourceAllocation().v1().resourcesSlices().watch(new Watcher<ResourceSlice>() {
                @Override
                public void eventReceived(Action action, ResourceSlice slice) {
                    long now = System.nanoTime();
                    String gone = victim[0];
                    if (gone != null && slice.getSpec().getDevices().stream().noneMatch(d -> d.getName().equals(gone))) {
                        updates.add(now);
                    }
                }

                @Override
                public void onClose(WatcherException cause) {
                }
            })) {
                long[] samples = new long[XID_ROUNDS];
                for (int i = 0; i < XID_ROUNDS; i++) {
                    int gpu = i % 8;
                    victim[0] = "gpu-" + gpu;
                    long start = System.nanoTime();
                    plugin.mock.injectXid(plugin.gpuUuid(gpu), 94);
                    Long seen = updates.poll(20, TimeUnit.SECONDS);
                    if (seen == null) {
                        throw new IllegalStateException("no slice update after an XID on GPU " + gpu);
                    }
                    samples[i] = seen - start;
                    victim[0] = null;
                    plugin.clock.advance(HealthPolicy.DEFAULT_QUIET_PERIOD);
                    plugin.node.checkHealthNow();
                    Await.until(() -> plugin.dra.status().slicesCurrent() && slices(api) == 8, Duration.ofSeconds(20),
                            "GPU " + gpu + " back in the slice");
                    updates.clear();
                }
                return samples;
            }
        }
    }

    static int slices(TestApiServer api) {
        return api.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
                .mapToInt(s -> s.getSpec().getDevices().size()).sum();
    }

    /** [first publication, update after one device left], nanoseconds per sync, on fresh API servers. */
    static long[][] syncs(String profile) throws Exception {
        MockNvml.load().useProfile(profile);
        NodeDevices devices;
        try (DeviceSource source = NvmlDeviceSource.factory(NvmlOptions.fromEnvironment(System::getenv),
                MigCapabilities.none()).open()) {
            NodeInventory inventory = source.inventory();
            devices = NodeDevices.of(inventory);
        }
        ResourcePool full = new ResourcePool(DraNames.DRIVER, NODE, NODE, devices.devices());
        ResourcePool oneLess = new ResourcePool(DraNames.DRIVER, NODE, NODE, devices.devices().subList(1, devices.devices().size()));
        long[] first = new long[SYNC_ROUNDS];
        long[] update = new long[SYNC_ROUNDS];
        for (int i = 0; i < SYNC_ROUNDS + 3; i++) {
            try (TestApiServer api = apiWithNode()) {
                KubernetesResourceSlices store = new KubernetesResourceSlices(api.client());
                long start = System.nanoTime();
                store.sync(full);
                long created = System.nanoTime();
                store.sync(oneLess);
                long updated = System.nanoTime();
                if (i >= 3) {
                    first[i - 3] = created - start;
                    update[i - 3] = updated - created;
                }
            }
        }
        return new long[][]{first, update};
    }

    private DraBenchmark() {
    }
}
