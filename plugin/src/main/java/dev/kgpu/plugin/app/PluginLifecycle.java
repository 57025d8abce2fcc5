package dev.kgpu.plugin.app;

import dev.kgpu.config.ConfigLoader;
import dev.kgpu.config.DevicePluginConfig;
import dev.kgpu.config.Reload;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.plugin.StartupDecision;
import dev.kgpu.plugin.lifecycle.ConfiguredSetup;
import dev.kgpu.plugin.lifecycle.PluginSupervisor;
import dev.kgpu.plugin.lifecycle.RecoverySettings;
import dev.kgpu.plugin.lifecycle.SetupReload;
import dev.kgpu.plugin.nvml.MigCapabilities;
import dev.kgpu.plugin.nvml.NvmlDeviceSource;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.annotations.CommandLineArguments;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.InstantSource;
import java.util.function.Function;

/**
 * Starts the supervisor when Quarkus starts and stops it when Quarkus stops (SIGTERM); turns SIGHUP into
 * a reload. The supervisor does everything else.
 */
@ApplicationScoped
public class PluginLifecycle {

    private static final Logger LOG = Logger.getLogger(PluginLifecycle.class);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);
    private static volatile int exitStatus;

    @Inject
    @CommandLineArguments
    String[] args;

    @Inject
    MicrometerPluginEvents events;

    private volatile PluginSupervisor supervisor;

    /** 0, or 1 after the supervisor gave up. */
    public static int exitStatus() {
        return exitStatus;
    }

    void start(@Observes StartupEvent event) {
        Function<String, String> environment = PluginEnvironment.get();
        ConfigLoader<DevicePluginConfig> loader = DevicePluginConfig.loader(args, environment);
        StartupDecision decision = StartupDecision.decide(args, environment);
        if (!(decision instanceof StartupDecision.Run run)) {
            throw new IllegalStateException(((StartupDecision.Exit) decision).message());
        }
        DevicePluginConfig config = run.config();
        config.warnings().forEach(w -> LOG.warn(w.toString()));
        LOG.infof("Running with config:%n%s", config.toJson());
        RecoverySettings recovery = run.recovery();
        supervisor = new PluginSupervisor(
                ConfiguredSetup.of(config),
                () -> switch (loader.reload()) {
                    case Reload.Loaded<DevicePluginConfig> loaded -> {
                        loaded.config().warnings().forEach(w -> LOG.warn(w.toString()));
                        yield new SetupReload.Loaded(ConfiguredSetup.of(loaded.config()));
                    }
                    case Reload.Rejected<DevicePluginConfig> rejected -> new SetupReload.Rejected(rejected.message());
                },
                NvmlDeviceSource.factory(NvmlOptions.fromEnvironment(environment), MigCapabilities.read(MigCapabilities.DEFAULT_FILE)),
                ConfiguredSetup.healthPolicy(config, recovery),
                InstantSource.system(),
                events,
                new PluginSupervisor.Timing(recovery.checkInterval(), PluginSupervisor.Timing.DEFAULT.initialRetry(),
                        PluginSupervisor.Timing.DEFAULT.maxRetry()),
                this::giveUp);
        supervisor.start();
        Signals.onHangup(supervisor::reload);
    }

    void stop(@Observes ShutdownEvent event) {
        PluginSupervisor running = supervisor;
        if (running != null && !running.stop(STOP_TIMEOUT)) {
            LOG.warnf("the supervisor did not stop within %s", STOP_TIMEOUT);
        }
    }

    /** The supervisor in this process, once started. */
    public PluginSupervisor supervisor() {
        return supervisor;
    }

    private void giveUp(String reason) {
        LOG.errorf("exiting: %s", reason);
        exitStatus = 1;
        Quarkus.asyncExit(1);
    }
}
