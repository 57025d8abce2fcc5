package dev.kgpu.plugin.testing;

import dev.kgpu.config.ConfigLoader;
import dev.kgpu.config.DevicePluginConfig;
import dev.kgpu.config.Reload;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.nvml.testing.MockNvml;
import dev.kgpu.nvml.testing.MockProfile;
import dev.kgpu.plugin.kubelet.UnixSocketTransport;
import dev.kgpu.plugin.kubelet.v1beta1.DevicePluginGrpc;
import dev.kgpu.plugin.lifecycle.ConfiguredSetup;
import dev.kgpu.plugin.lifecycle.PluginSupervisor;
import dev.kgpu.plugin.lifecycle.RecoverySettings;
import dev.kgpu.plugin.lifecycle.SetupReload;
import dev.kgpu.plugin.nvml.MigCapabilities;
import dev.kgpu.plugin.nvml.NvmlDeviceSource;
import dev.kgpu.plugin.resources.PluginEvents;
import dev.kgpu.plugin.testing.kubelet.KubeletSimulator;
import dev.kgpu.plugin.testing.kubelet.ResourceState;
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
 * The real device plugin (its supervisor, configuration, NVML adapter, gRPC servers) in-process on the
 * mock NVML, next to a kubelet simulator in a temporary device-plugins folder. Time for the health quiet
 * period comes from a {@link TestClock}; the periodic health check is off, tests run it with
 * {@link PluginSupervisor#checkHealthNow()}.
 */
public final class MockNvmlPlugin implements AutoCloseable {

    public static final Duration WAIT = Duration.ofSeconds(20);

    public final Path dir;
    public final MockNvml mock;
    public final MockProfile profile;
    public final TestClock clock = new TestClock();
    public final List<String> fatal = new CopyOnWriteArrayList<>();
    public final KubeletSimulator kubelet;
    public final PluginSupervisor supervisor;
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
        this.kubelet = builder.startKubelet ? KubeletSimulator.start(dir) : null;
        ConfigLoader<DevicePluginConfig> loader = DevicePluginConfig.loader(builder.flags.toArray(String[]::new), env::get);
        DevicePluginConfig config = loader.load();
        RecoverySettings recovery = RecoverySettings.fromEnvironment(env::get);
        this.supervisor = new PluginSupervisor(ConfiguredSetup.of(config),
                () -> switch (loader.reload()) {
                    case Reload.Loaded<DevicePluginConfig> loaded -> new SetupReload.Loaded(ConfiguredSetup.of(loaded.config()));
                    case Reload.Rejected<DevicePluginConfig> rejected -> new SetupReload.Rejected(rejected.message());
                },
                NvmlDeviceSource.factory(NvmlOptions.fromEnvironment(System::getenv), MigCapabilities.none()),
                ConfiguredSetup.healthPolicy(config, recovery), clock, builder.events,
                new PluginSupervisor.Timing(Duration.ofHours(1), Duration.ofMillis(50), Duration.ofMillis(500)),
                fatal::add);
        supervisor.start();
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

    /** Replaces the config file; {@link PluginSupervisor#reload()} then reads it (as SIGHUP does). */
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

    @Override
    public void close() {
        try {
            supervisor.stop(WAIT);
        } finally {
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
        private PluginEvents events = PluginEvents.NONE;
        private boolean keepFailures;

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

        public Builder events(PluginEvents events) {
            this.events = events;
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
