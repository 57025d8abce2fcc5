package dev.kgpu.plugin.testing;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;
import dev.kgpu.plugin.app.PluginAdapters;
import dev.kgpu.plugin.deviceplugin.DevicePluginFrontEnd;
import dev.kgpu.plugin.deviceplugin.DevicePluginMetrics;
import dev.kgpu.plugin.dra.DraDriver;
import dev.kgpu.plugin.dra.DraMetrics;
import dev.kgpu.plugin.dra.DraNames;
import dev.kgpu.plugin.node.AllocationLedger;
import dev.kgpu.plugin.node.FrontEnd;
import dev.kgpu.plugin.node.NodeMetrics;
import dev.kgpu.plugin.node.NodeRuntime;
import dev.kgpu.plugin.nvml.MigCapabilities;
import dev.kgpu.plugin.nvml.NvmlDeviceSource;
import dev.kgpu.plugin.settings.PluginSettings;
import dev.kgpu.sim.apiserver.TestApiServer;
import dev.kgpu.sim.kubelet.DeviceManagerCheckpoint;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.kubelet.ResourceState;
import dev.kgpu.sim.pluginwatcher.DraPluginClient;
import dev.kgpu.sim.pluginwatcher.PluginWatcher;
import io.grpc.ManagedChannel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * The real plugin (its settings, node runtime, front-ends, NVML adapter, gRPC servers) in-process on the mock
 * NVML, next to a kubelet simulator in a temporary device-plugins folder. Settings are loaded as the entry
 * point loads them, from the builder's flags, variables and config file. Time for the health quiet period
 * comes from a {@link TestClock}; the periodic health check is off (unless a test sets
 * {@code KGPU_HEALTH_CHECK_INTERVAL}), tests run it with {@link NodeRuntime#checkHealthNow()}.
 */
public final class MockNvmlPlugin implements AutoCloseable {

    public static final Duration WAIT = Duration.ofSeconds(20);
    /** Short waits, so a test sees a retry soon. */
    static final Backoff.Policy RETRIES = new Backoff.Policy(Duration.ofMillis(50), Duration.ofMillis(500));

    public final Path dir;
    public final MockNvml mock;
    public final MockProfile profile;
    public final TestClock clock = new TestClock();
    public final List<String> fatal = new CopyOnWriteArrayList<>();
    public final KubeletSimulator kubelet;
    /** Who holds which GPU, as the front-ends share it (recording only with the DRA driver). */
    public final AllocationLedger ledger;
    /** The node runtime: its status and health checks. */
    public final NodeRuntime<PluginSettings> node;
    /** Runs the node: SIGHUP ({@code reload}) and SIGTERM ({@code stop}). */
    public final Supervisor<PluginSettings, Runnable> supervisor;
    /** The device-plugin front-end, unless {@code KGPU_KUBELET_APIS} leaves it out; else null. */
    public final DevicePluginFrontEnd devicePlugin;
    /** The DRA driver, when the builder asked for it ({@link Builder#dra}); else null. */
    public final DraDriver dra;
    /** The kubelet's plugin watcher on {@code <dir>/plugins_registry}, when the DRA driver runs; else null. */
    public final PluginWatcher pluginWatcher;
    private final Path configFile;
    private UnixSocketTransport client;

    private MockNvmlPlugin(Builder builder) {
        this.dir = builder.dir;
        this.mock = MockNvml.load();
        if (!builder.keepFailures) {
            mock.reset();
        }
        mock.useProfile(builder.profile);
        this.profile = builder.profile.endsWith(".json")
                ? parse(Path.of(builder.profile)) : MockNvml.profile(builder.profile);
        this.configFile = dir.resolve("config.yaml");
        write(configFile, builder.config);
        Map<String, String> env = new HashMap<>(builder.env);
        env.put("KUBELET_SOCKET", dir.resolve("kubelet.sock").toString());
        env.put("CONFIG_FILE", configFile.toString());
        env.putIfAbsent("KGPU_HEALTH_CHECK_INTERVAL", "1h");
        env.putIfAbsent("KGPU_NVML_LIBRARY", System.getenv("KGPU_NVML_LIBRARY"));
        env.putIfAbsent("KGPU_CDI_SPEC_DIR", dir.resolve("cdi").toString());
        if (builder.api != null) {
            env.putIfAbsent("KGPU_KUBELET_APIS", "device-plugin,dra");
            env.putIfAbsent("NODE_NAME", builder.nodeName);
            env.putIfAbsent("CDI_ROOT", dir.resolve("cdi").toString());
            env.putIfAbsent("KUBELET_REGISTRAR_DIRECTORY_PATH", dir.resolve("plugins_registry").toString());
            env.putIfAbsent("KUBELET_PLUGINS_DIRECTORY_PATH", dir.resolve("plugins").toString());
            // the kubelet simulator's, which it writes in its device-plugins folder as a kubelet does
            env.putIfAbsent("KGPU_DEVICE_MANAGER_CHECKPOINT", dir.resolve(DeviceManagerCheckpoint.FILE_NAME).toString());
            env.putIfAbsent("KGPU_POD_RESOURCES_SOCKET", dir.resolve("pod-resources/kubelet.sock").toString());
        }
        this.kubelet = builder.startKubelet ? KubeletSimulator.start(dir) : null;
        String[] args = builder.flags.toArray(String[]::new);
        PluginSettings settings = PluginSettings.load(args, env::get);
        List<FrontEnd.Binding<PluginSettings, ?>> frontEnds = PluginAdapters.frontEnds(settings, frontEndCounts,
                () -> builder.api.client(), RETRIES);
        this.devicePlugin = frontEnd(frontEnds, DevicePluginFrontEnd.class);
        this.dra = frontEnd(frontEnds, DraDriver.class);
        this.pluginWatcher = dra != null && builder.startKubelet
                ? PluginWatcher.start(settings.dra().orElseThrow().registrarDirectory()) : null;
        this.ledger = PluginAdapters.ledger(settings);
        this.node = new NodeRuntime<>(NvmlDeviceSource.factory(settings.node().nvml(), MigCapabilities.none()), ledger,
                frontEnds, clock, builder.metrics, RETRIES);
        this.supervisor = Supervisor.builder(NodeRuntime.THREAD_NAME, ExitReasons.recording(node, fatal))
                .reloads(NodeRuntime.RUNNING, () -> PluginSettings.load(args, env::get))
                .start(settings);
    }

    /** What the front-ends count here: the restarts of MPS claims' daemons; the node's go to {@link Builder#metrics}. */
    public final FrontEndCounts frontEndCounts = new FrontEndCounts();

    public static final class FrontEndCounts implements DevicePluginMetrics, DraMetrics {
        public final java.util.concurrent.atomic.AtomicInteger mpsDaemonRestarts = new java.util.concurrent.atomic.AtomicInteger();
        public final java.util.concurrent.atomic.AtomicInteger mpsDaemonRestartFailures = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void mpsDaemonRestarted(boolean success) {
            (success ? mpsDaemonRestarts : mpsDaemonRestartFailures).incrementAndGet();
        }
    }

    private static <F> F frontEnd(List<FrontEnd.Binding<PluginSettings, ?>> frontEnds, Class<F> type) {
        return frontEnds.stream().map(FrontEnd.Binding::frontEnd).filter(type::isInstance).map(type::cast).findFirst()
                .orElse(null);
    }

    public static Builder builder(Path dir) {
        return new Builder(dir);
    }

    private static MockProfile parse(Path file) {
        try {
            return MockProfile.parse(file.getFileName().toString(), Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Replaces the config file; {@link Supervisor#reload()} then loads it (as SIGHUP does). */
    public void rewriteConfig(String yaml) {
        write(configFile, yaml);
    }

    public ResourceState await(String resource, Predicate<ResourceState> condition) {
        return kubelet.awaitResource(resource, condition, WAIT);
    }

    /**
     * Waits until the kubelet's capacity is exactly {@code expected}, resource by resource: every resource
     * registered and its device list received (registration alone does not tell the kubelet the devices).
     */
    public void awaitCapacity(Map<String, Long> expected) {
        try {
            kubelet.await(() -> kubelet.capacity().equals(expected), WAIT, "capacity " + expected);
        } catch (IllegalStateException e) {
            throw new AssertionError(e.getMessage() + "; last capacity " + kubelet.capacity(), e);
        }
    }

    public String gpuUuid(int index) {
        return MockProfile.string(profile.gpu(index), "uuid");
    }

    public int gpuCount() {
        return profile.gpus().size();
    }

    /** A kubelet-side client of the plugin's socket for {@code socketName}, for calls the kubelet simulator does not make. */
    public DevicePluginGrpc.DevicePluginBlockingStub pluginClient(String socketName) {
        if (client == null) {
            client = new UnixSocketTransport("test-client", 1);
        }
        ManagedChannel channel = client.dial(dir.resolve(socketName));
        return DevicePluginGrpc.newBlockingStub(channel);
    }

    /** The DRA driver's client, once the plugin watcher registered it. */
    public DraPluginClient draClient() {
        return pluginWatcher.awaitDriver(DraNames.DRIVER, WAIT);
    }

    @Override
    public void close() {
        try {
            supervisor.stop(WAIT);
        } finally {
            if (pluginWatcher != null) {
                pluginWatcher.close();
            }
            if (kubelet != null) {
                kubelet.close();
            }
            if (client != null) {
                client.close();
            }
            mock.reset();
        }
    }

    /** Options of one plugin start. */
    public static final class Builder {
        private final Path dir;
        private String profile = "rtx3060";
        private String config = "version: v1\n";
        private final Map<String, String> env = new HashMap<>();
        private final List<String> flags = new ArrayList<>();
        private boolean startKubelet = true;
        private NodeMetrics metrics = NodeMetrics.NONE;
        private boolean keepFailures;
        private TestApiServer api;
        private String nodeName;

        private Builder(Path dir) {
            this.dir = dir;
        }

        /** A shipped profile name, or a path to a {@code .json} profile. */
        public Builder profile(String nameOrPath) {
            this.profile = nameOrPath;
            return this;
        }

        public Builder config(String yaml) {
            this.config = yaml;
            return this;
        }

        public Builder env(String name, String value) {
            env.put(name, value);
            return this;
        }

        public Builder flag(String flag) {
            flags.add(flag);
            return this;
        }

        public Builder withoutKubelet() {
            this.startKubelet = false;
            return this;
        }

        /** Where the node counts its health transitions. */
        public Builder metrics(NodeMetrics metrics) {
            this.metrics = metrics;
            return this;
        }

        /**
         * Runs the DRA driver too ({@code KGPU_KUBELET_APIS=device-plugin,dra} unless set), as node {@code nodeName},
         * against {@code api}, with its folders under the test's folder and a plugin watcher registering it.
         */
        public Builder dra(TestApiServer api, String nodeName) {
            this.api = api;
            this.nodeName = nodeName;
            return this;
        }

        public MockNvmlPlugin start() {
            return new MockNvmlPlugin(this);
        }

        /** Starts without resetting the mock first, so NVML failures set up before stay in force. */
        public MockNvmlPlugin startKeepingFailures() {
            this.keepFailures = true;
            return new MockNvmlPlugin(this);
        }
    }
}
