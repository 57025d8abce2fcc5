package dev.kgpu.plugin;

import dev.kgpu.agent.Launch;
import dev.kgpu.agent.Startup;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.plugin.app.MpsWiring;
import dev.kgpu.plugin.config.DevicePluginConfig;
import dev.kgpu.plugin.mps.MountShm;
import dev.kgpu.plugin.mps.MpsDaemonSettings;
import dev.kgpu.plugin.mps.MpsSettings;
import dev.kgpu.plugin.app.PluginEnvironment;
import dev.kgpu.plugin.app.PluginWiring;
import dev.kgpu.plugin.settings.PluginSettings;
import io.quarkus.runtime.ApplicationLifecycleManager;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;

import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntConsumer;

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
 *
 * <p>The same image is NVIDIA's other agent, the MPS control daemon ({@code mps-control-daemon}, see {@link Component}):
 * the same steps with its settings, {@code MpsWiring} instead of {@code PluginWiring}, and no HTTP server;
 * {@code mps-control-daemon mount-shm} mounts the MPS clients' shared memory and exits without Quarkus.
 */
@QuarkusMain
public class PluginMain implements QuarkusApplication {

    /** The binary, first on the line a bad setting prints. */
    public static final String NAME = "kgpu-plugin";

    static final Launch<PluginSettings> LAUNCH = new Launch<>(NAME, PluginSettings.class, PluginSettings::load);
    /** The image's other agent: NVIDIA's {@code mps-control-daemon} ({@link Component}). */
    static final Launch<MpsDaemonSettings> MPS_LAUNCH = new Launch<>(DevicePluginConfig.MPS_CONTROL_DAEMON,
            MpsDaemonSettings.class, MpsWiring::load);

    @Inject
    PluginWiring plugin;

    @Inject
    MpsWiring mps;

    public static void main(String... args) {
        // without Quarkus: through its exit handler, which is System.exit in production and records the status under
        // @QuarkusMainTest
        IntConsumer exit = status -> ApplicationLifecycleManager.getDefaultExitCodeHandler().accept(status, null);
        Component.Selected selected = Component.select(args, ConfigLoader::processEnvironment, Component.programName());
        if (selected.problem().isPresent()) {
            System.err.println(NAME + ": " + selected.problem().get());
            exit.accept(1);
            return;
        }
        if (selected.component() == Component.MPS_CONTROL_DAEMON) {
            String[] daemonArgs = selected.args();
            if (daemonArgs.length > 0 && daemonArgs[0].equals(MountShm.COMMAND)) {
                exit.accept(MountShm.run(mpsRoot(), System.out, System.err));
                return;
            }
            // no HTTP server: NVIDIA's MPS DaemonSet has no probes, and its pod must not take the plugin's port
            MPS_LAUNCH.main(daemonArgs, exit, settings -> {
                System.setProperty("quarkus.http.host-enabled", "false");
                Quarkus.run(PluginMain.class, args);
            });
            return;
        }
        LAUNCH.main(args, exit, settings -> Quarkus.run(PluginMain.class, args));
    }

    /** Reads every setting once: the settings, or the one line and exit status to end with. */
    public static Startup<PluginSettings> load(String[] args, Function<String, String> environment) {
        return LAUNCH.load(args, environment);
    }

    /** The MPS control daemon's settings, read as {@link #load} reads the plugin's. */
    public static Startup<MpsDaemonSettings> loadMpsControlDaemon(String[] args, Function<String, String> environment) {
        return MPS_LAUNCH.load(args, environment);
    }

    /** Dev mode and {@code @QuarkusMainTest} call this without main: the settings are read here, with Quarkus' too. */
    @Override
    public int run(String... args) {
        Component.Selected selected = Component.select(args, PluginEnvironment.get(), Optional.empty());
        if (Launch.bound(MpsDaemonSettings.class).isPresent() || selected.component() == Component.MPS_CONTROL_DAEMON) {
            return MPS_LAUNCH.run(selected.args(), PluginEnvironment.get(), mps::run);
        }
        return LAUNCH.run(args, PluginEnvironment.get(), plugin::run);
    }

    /** The MPS root in this container, where mount-shm mounts: {@code KGPU_MPS_CONTAINER_ROOT}, else NVIDIA's /mps. */
    private static Path mpsRoot() {
        return Path.of(Optional.ofNullable(ConfigLoader.processEnvironment("KGPU_MPS_CONTAINER_ROOT"))
                .filter(r -> !r.isBlank()).orElse(MpsSettings.DEFAULT_ROOT));
    }
}
