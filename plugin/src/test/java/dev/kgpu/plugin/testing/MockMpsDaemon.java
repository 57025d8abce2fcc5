package dev.kgpu.plugin.testing;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.plugin.app.MpsWiring;
import dev.kgpu.plugin.devices.ComputeModes;
import dev.kgpu.plugin.devices.DeviceSource;
import dev.kgpu.plugin.mps.ControlProgram;
import dev.kgpu.plugin.mps.MpsControlDaemon;
import dev.kgpu.plugin.mps.MpsDaemonSettings;
import dev.kgpu.plugin.mps.MpsPaths;
import dev.kgpu.plugin.nvml.MigCapabilities;
import dev.kgpu.plugin.nvml.NvmlDeviceSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * kgpu's MPS control daemon agent ({@code mps-control-daemon}) in-process on the mock NVML (whose profile the test
 * chose), with the mock's fake {@code nvidia-cuda-mps-control} as its control program and its MPS root in the test's
 * folder (or {@code KGPU_MPS_CONTAINER_ROOT}). Settings are loaded as the entry point loads them. {@link #ask} is a client of a daemon, as the plugin's
 * check is; {@link #computeMode} reads NVML through the real FFM path.
 */
public final class MockMpsDaemon implements AutoCloseable {

    public static final Duration WAIT = Duration.ofSeconds(20);
    static final Backoff.Policy RETRIES = new Backoff.Policy(Duration.ofMillis(50), Duration.ofMillis(500));

    public final Path root;
    public final Path configFile;
    public final MpsControlDaemon daemon;
    public final Supervisor<MpsDaemonSettings, Runnable> supervisor;
    /** Why the agent asked to exit, in order. */
    public final List<String> exits = new CopyOnWriteArrayList<>();
    private final DeviceSource nvml;

    private MockMpsDaemon(Path dir, String config, Map<String, String> extra) {
        this.configFile = dir.resolve("mps-config.yaml");
        write(configFile, config);
        Map<String, String> env = new HashMap<>();
        env.put("CONFIG_FILE", configFile.toString());
        env.put("KGPU_NVML_LIBRARY", System.getenv("KGPU_NVML_LIBRARY"));
        env.put("KGPU_MPS_CONTAINER_ROOT", dir.resolve("mps").toString());
        env.put("KGPU_MPS_CONTROL", fake().toString());
        env.put("KGPU_HEALTH_CHECK_INTERVAL", "1s");
        env.putAll(extra);
        env.values().removeIf(v -> v == null);
        MpsDaemonSettings settings = MpsWiring.load(new String[0], env::get);
        this.root = settings.mps().root();
        this.nvml = NvmlDeviceSource.factory(settings.node().nvml(), MigCapabilities.none()).open();
        // a changed config file asks for a reload, as the application's wiring does
        java.util.concurrent.atomic.AtomicReference<Supervisor<MpsDaemonSettings, Runnable>> self =
                new java.util.concurrent.atomic.AtomicReference<>();
        this.daemon = new MpsControlDaemon(NvmlDeviceSource.factory(settings.node().nvml(), MigCapabilities.none()),
                MpsWiring::plan, Optional.empty(), RETRIES,
                () -> Optional.ofNullable(self.get()).ifPresent(Supervisor::reload));
        this.supervisor = Supervisor.builder(MpsControlDaemon.THREAD_NAME, ExitReasons.recording(daemon, exits))
                .reloads(MpsControlDaemon.RUNNING, () -> MpsWiring.load(new String[0], env::get))
                .start(settings);
        self.set(supervisor);
    }

    /** Starts the agent with {@code config} (NVIDIA's config v1) and {@code env} on top of the test's settings. */
    public static MockMpsDaemon start(Path dir, String config, Map<String, String> env) {
        return new MockMpsDaemon(dir, config, env);
    }

    public static MockMpsDaemon start(Path dir, String config) {
        return start(dir, config, Map.of());
    }

    /** The mock's fake {@code nvidia-cuda-mps-control}, built beside the mock library. */
    public static Path fake() {
        return Path.of(System.getenv("KGPU_NVML_LIBRARY")).resolveSibling(ControlProgram.NAME);
    }

    public MpsPaths paths() {
        return new MpsPaths(root);
    }

    /** Waits until every daemon runs and {@code .ready} is written. */
    public MpsControlDaemon.Status awaitReady() {
        Await.until(() -> daemon.status().ready(), WAIT, "the MPS control daemons ready; last " + daemon.status());
        return daemon.status();
    }

    /** Sends {@code command} to the daemon of {@code resource} as a client; its answer, or why there was none. */
    public ControlProgram.Result ask(String resource, String command) {
        return new ControlProgram(fake(), ControlProgram.TIMEOUT).send(paths().pipe(resource), paths().log(resource),
                command);
    }

    /** The GPU's compute mode, as NVML reports it. */
    public ComputeModes.Mode computeMode(String uuid) {
        return nvml.computeModes().get(uuid);
    }

    public void setComputeMode(String uuid, ComputeModes.Mode mode) {
        nvml.computeModes().set(uuid, mode);
    }

    public void rewriteConfig(String yaml) {
        write(configFile, yaml);
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            supervisor.stop(WAIT);
        } finally {
            nvml.close();
        }
    }
}
