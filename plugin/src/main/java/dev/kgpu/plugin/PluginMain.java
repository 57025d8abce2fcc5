package dev.kgpu.plugin;

import dev.kgpu.agent.Launch;
import dev.kgpu.agent.Startup;
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
 *   <li>stop: the servers stop and their sockets are removed; exit 0 (after SIGTERM too), or 1 after giving up.</li>
 * </ol>
 * The settings reach Quarkus through the agent kit's {@link Launch} (bound while Quarkus runs on main's thread).
 * Only this class decides the exit status.
 */
@QuarkusMain
public class PluginMain implements QuarkusApplication {

    /** The binary, first on the line a bad setting prints. */
    public static final String NAME = "kgpu-plugin";

    static final Launch<PluginSettings> LAUNCH = new Launch<>(NAME, PluginSettings.class, PluginSettings::load);

    @Inject
    PluginWiring plugin;

    public static void main(String... args) {
        // without Quarkus: through its exit handler, which is System.exit in production and records the status under
        // @QuarkusMainTest
        LAUNCH.main(args, status -> ApplicationLifecycleManager.getDefaultExitCodeHandler().accept(status, null),
                settings -> Quarkus.run(PluginMain.class, args));
    }

    /** Reads every setting once: the settings, or the one line and exit status to end with. */
    public static Startup<PluginSettings> load(String[] args, Function<String, String> environment) {
        return LAUNCH.load(args, environment);
    }

    /** Dev mode and {@code @QuarkusMainTest} call this without main: the settings are read here, with Quarkus' too. */
    @Override
    public int run(String... args) {
        return LAUNCH.run(args, PluginEnvironment.get(), plugin::run);
    }
}
