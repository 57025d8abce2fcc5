package dev.kgpu.plugin;

import dev.kgpu.agent.Startup;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.plugin.app.PluginEnvironment;
import dev.kgpu.plugin.app.PluginWiring;
import dev.kgpu.plugin.settings.PluginSettings;
import io.quarkus.runtime.ApplicationLifecycleManager;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;

import java.util.function.Function;

/**
 * The plugin's one entry point (the device plugin, the DRA driver, or both). Its whole lifecycle:
 * <ol>
 *   <li>load ({@link #main}, before Quarkus starts): flags, environment and config file, each setting read and
 *       checked once; a bad one exits 1 with one line naming it and nothing else ({@code --help}: usage, exit 0);</li>
 *   <li>start: the node runtime reads the devices and serves them through its front-ends, again on SIGHUP, which
 *       loads the settings again the same way (a bad file keeps the running ones); the device plugin registers every
 *       resource again after a kubelet restart;</li>
 *   <li>wait: for SIGTERM, or for the node to give up (devices unreadable with
 *       {@code failOnInitError}, a configuration the node cannot be served with);</li>
 *   <li>stop: the servers stop and their sockets are removed; exit 0, or 1 after giving up.</li>
 * </ol>
 * Only this class decides the exit status.
 */
@QuarkusMain
public class PluginMain implements QuarkusApplication {

    /** The binary, first on the line a bad setting prints. */
    public static final String NAME = "kgpu-plugin";

    /** Read by {@link #main} before Quarkus starts; Quarkus then creates this class as a bean, which finds them here. */
    private static volatile Loaded loaded;

    private record Loaded(PluginSettings settings, Function<String, String> environment) {
    }

    @Inject
    PluginWiring plugin;

    public static void main(String... args) {
        Function<String, String> environment = ConfigLoader::processEnvironment;
        switch (load(args, environment)) {
            case Startup.Exit<PluginSettings> exit -> end(exit.print(System.out, System.err));
            case Startup.Run<PluginSettings>(PluginSettings settings) -> {
                loaded = new Loaded(settings, environment);
                Quarkus.run(PluginMain.class, args);
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
    public static Startup<PluginSettings> load(String[] args, Function<String, String> environment) {
        return Startup.load(NAME, () -> PluginSettings.load(args, environment));
    }

    @Override
    public int run(String... args) {
        Loaded start = loaded;
        if (start == null) {
            // dev mode and @QuarkusMainTest call run without main: read them here, with Quarkus' configuration too
            Function<String, String> environment = PluginEnvironment.get();
            switch (load(args, environment)) {
                case Startup.Exit<PluginSettings> exit -> {
                    return exit.print(System.out, System.err);
                }
                case Startup.Run<PluginSettings>(PluginSettings settings) -> start = new Loaded(settings, environment);
            }
        }
        Function<String, String> environment = start.environment();
        plugin.start(start.settings(), () -> PluginSettings.load(args, environment));
        Quarkus.waitForExit();
        return plugin.stop();
    }
}
