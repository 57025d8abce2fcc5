package dev.kgpu.plugin;

import dev.kgpu.config.ConfigException;
import dev.kgpu.plugin.app.PluginEnvironment;
import dev.kgpu.plugin.app.PluginWiring;
import dev.kgpu.plugin.settings.PluginSettings;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;

import java.util.function.Function;

/**
 * The device plugin's one entry point. Its whole lifecycle:
 * <ol>
 *   <li>load: flags, environment and config file, each setting read and checked once; a bad one exits 1
 *       with one line naming it ({@code --help}: usage, exit 0);</li>
 *   <li>start: the supervisor serves and registers every resource, and restarts them on kubelet restarts
 *       and on SIGHUP, which loads the settings again the same way (a bad file keeps the running ones);</li>
 *   <li>wait: for SIGTERM, or for the supervisor to give up (devices unreadable with
 *       {@code failOnInitError}, a configuration the node cannot be served with);</li>
 *   <li>stop: the servers stop and their sockets are removed; exit 0, or 1 after giving up.</li>
 * </ol>
 * Only this class decides the exit status.
 */
@QuarkusMain
public class PluginMain implements QuarkusApplication {

    @Inject
    PluginWiring plugin;

    @Override
    public int run(String... args) {
        Function<String, String> environment = PluginEnvironment.get();
        PluginSettings settings;
        try {
            settings = PluginSettings.load(args, environment);
        } catch (ConfigException e) {
            (e.exitCode() == 0 ? System.out : System.err).println(e.getMessage());
            return e.exitCode();
        }
        plugin.start(settings, () -> PluginSettings.load(args, environment));
        Quarkus.waitForExit();
        return plugin.stop();
    }
}
