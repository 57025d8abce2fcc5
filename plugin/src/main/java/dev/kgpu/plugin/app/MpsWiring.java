package dev.kgpu.plugin.app;

import dev.kgpu.agent.Launch;
import dev.kgpu.agent.Supervisor;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.cdi.MigMinors;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.plugin.config.DevicePluginConfig;
import dev.kgpu.plugin.deviceplugin.DevicePluginSettings;
import dev.kgpu.plugin.deviceplugin.resources.ConfiguredResourcePlanner;
import dev.kgpu.plugin.deviceplugin.resources.ResourcePlanException;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.mps.MpsControlDaemon;
import dev.kgpu.plugin.mps.MpsDaemonSettings;
import dev.kgpu.plugin.mps.MpsSettings;
import dev.kgpu.plugin.node.NodeRuntime;
import dev.kgpu.plugin.node.NodeSettings;
import dev.kgpu.plugin.node.UnservableException;
import dev.kgpu.plugin.nvml.MigCapabilities;
import dev.kgpu.plugin.nvml.NvmlDeviceSource;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Loads the MPS control daemon agent's ({@code mps-control-daemon}) settings with the device plugin's loader, builds it
 * from them, the plugin's NVML adapter and the device plugin's resource planner, and runs it on the agent kit's {@link Supervisor}, which relays SIGHUP; a change of the config file's contents asks
 * for the same reload. The entry point ({@code PluginMain}) runs it and exits with its status.
 */
@ApplicationScoped
public class MpsWiring {

    private static final System.Logger LOG = System.getLogger(MpsWiring.class.getName());
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private volatile Supervisor<MpsDaemonSettings, Runnable> supervisor;

    /**
     * Reads every setting once, as NVIDIA's {@code mps-control-daemon} reads them: the device plugin's flags, variables
     * and config file, the node's settings and kgpu's MPS and resource settings.
     *
     * @param args        the command line after {@code mps-control-daemon}
     * @throws UsageRequestedException after {@code --help}
     * @throws InvalidConfigException  naming every bad setting and its value on one line
     */
    public static MpsDaemonSettings load(String[] args, Function<String, String> environment) {
        List<Setting<?>> all = new ArrayList<>(NodeSettings.SETTINGS);
        all.addAll(DevicePluginSettings.SETTINGS); // the MPS settings among them
        return DevicePluginConfig.mpsControlDaemonLoader(args, environment, List.copyOf(all), MpsWiring::settings).load();
    }

    private static MpsDaemonSettings settings(DevicePluginConfig loaded, ConfigLoader.Resolved resolved) {
        NodeSettings node = NodeSettings.of(loaded, resolved);
        ConfiguredResourcePlanner.Settings resources = DevicePluginSettings.of(loaded, resolved, node.procRoot()).resources();
        return new MpsDaemonSettings(node, resources.config(),
                resources.sharingDevices() == ConfiguredResourcePlanner.SharingDevices.HONOURED, MpsSettings.of(resolved),
                loaded.configFile(), loaded.configFile().map(MpsDaemonSettings::hash).orElse(""), loaded.toJson(),
                loaded.warnings());
    }

    /** The device plugin's resources of {@code settings} on a node: what the MPS control daemons share. */
    public static List<PluginResource> plan(MpsDaemonSettings settings, NodeInventory inventory) {
        try {
            // each start plans again: the planner's warnings about the config are the plugin's to log, once
            return new ConfiguredResourcePlanner(settings.config(), settings.honourSharingDevices()
                    ? ConfiguredResourcePlanner.SharingDevices.HONOURED : ConfiguredResourcePlanner.SharingDevices.IGNORED,
                    warning -> LOG.log(System.Logger.Level.DEBUG, "{0}", warning)).plan(inventory);
        } catch (ResourcePlanException e) {
            throw new UnservableException(e.getMessage());
        }
    }

    /** Runs the agent with the settings the entry point read until it ends; its exit status. */
    public int run(Launch.Launched<MpsDaemonSettings> launched) {
        return start(launched).awaitExit();
    }

    /** Starts the agent; SIGHUP, or a changed config file, reads the settings again the same way. */
    public Supervisor<MpsDaemonSettings, Runnable> start(Launch.Launched<MpsDaemonSettings> launched) {
        MpsDaemonSettings settings = launched.settings();
        settings.warnings().forEach(w -> LOG.log(System.Logger.Level.WARNING, w.toString()));
        LOG.log(System.Logger.Level.INFO, "Running with config:\n{0}", settings.description());
        AtomicReference<Supervisor<MpsDaemonSettings, Runnable>> self = new AtomicReference<>();
        MpsControlDaemon daemon = new MpsControlDaemon(
                NvmlDeviceSource.factory(settings.node().nvml(),
                        MigCapabilities.read(settings.node().procRoot().resolve(MigMinors.FILE))),
                MpsWiring::plan, Optional.ofNullable(System.getenv("PATH")), NodeRuntime.RETRIES,
                () -> Optional.ofNullable(self.get()).ifPresent(Supervisor::reload));
        Supervisor<MpsDaemonSettings, Runnable> started = Supervisor.builder(MpsControlDaemon.THREAD_NAME, daemon)
                .reloads(MpsControlDaemon.RUNNING, launched.reload())
                .start(settings);
        self.set(started);
        supervisor = started;
        return started;
    }

    /** SIGTERM: Quarkus' shutdown hook stops the daemons (each GPU gets its compute mode back) before the JVM halts. */
    void onShutdown(@Observes ShutdownEvent event) {
        Supervisor<MpsDaemonSettings, Runnable> running = supervisor;
        if (running != null && !running.stop(STOP_TIMEOUT)) {
            LOG.log(System.Logger.Level.WARNING, "the MPS control daemon agent did not stop within {0}", STOP_TIMEOUT);
        }
    }
}
