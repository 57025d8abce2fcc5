package dev.kgpu.discovery;

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

    /** Read by {@link #main} before Quarkus starts; Quarkus then creates this class as a bean, which finds it here. */
    private static volatile Startup.Run<FeatureDiscoveryConfig> loaded;

    @Inject
    Discovery discovery;

    public static void main(String... args) {
        switch (load(args, ConfigLoader::processEnvironment)) {
            case Startup.Exit<FeatureDiscoveryConfig> exit -> end(exit.print(System.out, System.err));
            case Startup.Run<FeatureDiscoveryConfig> run -> {
                loaded = run;
                if (run.settings().config().flags().gfd().oneshot()) {
                    System.setProperty("quarkus.http.host-enabled", "false"); // one pass: nothing probes it
                }
                Quarkus.run(DiscoveryMain.class, args);
            }
        }
    }

    /**
     * Ends the process with {@code status} without starting Quarkus: through Quarkus' exit handler, which is
     * {@code System.exit} in production and records the status under {@code @QuarkusMainTest}.
     */
    private static void end(int status) {
        ApplicationLifecycleManager.getDefaultExitCodeHandler().accept(status, null);
    }

    /** Reads every setting once: the settings, or the one line and exit status to end with. */
    public static Startup<FeatureDiscoveryConfig> load(String[] args, Function<String, String> environment) {
        return Startup.load(NAME, () -> FeatureDiscoveryConfig.load(args, environment));
    }

    @Override
    public int run(String... args) {
        Startup<FeatureDiscoveryConfig> start = loaded != null ? loaded
                : load(args, ConfigLoader::processEnvironment); // dev mode calls run without main
        return switch (start) {
            case Startup.Exit<FeatureDiscoveryConfig> exit -> exit.print(System.out, System.err);
            case Startup.Run<FeatureDiscoveryConfig>(FeatureDiscoveryConfig config) -> {
                discovery.start(config, FeatureDiscoveryConfig.loader(args, ConfigLoader::processEnvironment));
                yield discovery.awaitExit();
            }
        };
    }
}
