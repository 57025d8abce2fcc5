package dev.kgpu.discovery;

import dev.kgpu.agent.Launch;
import dev.kgpu.agent.Startup;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.discovery.run.Discovery;
import dev.kgpu.discovery.settings.FeatureDiscoveryConfig;
import io.quarkus.runtime.ApplicationLifecycleManager;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;

import java.util.function.Function;

/**
 * kgpu's GPU feature discovery, its one entry point. Its lifecycle: load the configuration once, before
 * Quarkus starts (GFD's flags, environment and config file; a bad one: one line and nothing else, exit 1;
 * a {@code GFD_ONESHOT} run opens no HTTP port); start labelling (SIGHUP reloads the config file through the
 * same loader and relabels); wait until the supervisor stops, after one pass with {@code GFD_ONESHOT} or on
 * SIGTERM, which stops it (see {@link Discovery}); exit with its status, 1 after any error.
 */
@QuarkusMain
public class DiscoveryMain implements QuarkusApplication {

    /** The binary, in messages. */
    static final String NAME = "kgpu-discovery";

    /** Reads the settings before Quarkus starts and hands them to {@link #run}. */
    static final Launch<FeatureDiscoveryConfig> LAUNCH = new Launch<>(NAME, FeatureDiscoveryConfig.class,
            FeatureDiscoveryConfig::load);

    @Inject
    Discovery discovery;

    public static void main(String... args) {
        LAUNCH.main(args, status -> ApplicationLifecycleManager.getDefaultExitCodeHandler().accept(status, null),
                config -> {
                    if (config.config().flags().gfd().oneshot()) {
                        System.setProperty("quarkus.http.host-enabled", "false"); // one pass: nothing probes it
                    }
                    Quarkus.run(DiscoveryMain.class, args);
                });
    }

    /** Reads every setting once: the settings, or the one line and exit status to end with. */
    public static Startup<FeatureDiscoveryConfig> load(String[] args, Function<String, String> environment) {
        return LAUNCH.load(args, environment);
    }

    @Override
    public int run(String... args) {
        return LAUNCH.run(args, ConfigLoader::processEnvironment, discovery::run); // dev mode calls run without main
    }
}
