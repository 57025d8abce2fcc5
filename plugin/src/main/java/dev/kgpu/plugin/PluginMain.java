package dev.kgpu.plugin;

import dev.kgpu.plugin.app.PluginLifecycle;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * The device plugin's entry point. Its whole lifecycle:
 * <ol>
 *   <li>read flags, environment and config file; a bad setting exits 1 with one line naming it;</li>
 *   <li>start Quarkus: {@link PluginLifecycle} starts the supervisor, which serves and registers every
 *       resource and restarts them on kubelet restarts and SIGHUP;</li>
 *   <li>wait for SIGTERM (the supervisor stops serving and removes its sockets), or for the supervisor to
 *       give up (devices unreadable with {@code failOnInitError}), which exits 1.</li>
 * </ol>
 */
@QuarkusMain
public class PluginMain implements QuarkusApplication {

    public static void main(String... args) {
        if (StartupDecision.decide(args, System::getenv) instanceof StartupDecision.Exit exit) {
            (exit.status() == 0 ? System.out : System.err).println(exit.message());
            System.exit(exit.status());
        }
        Quarkus.run(PluginMain.class, args);
    }

    @Override
    public int run(String... args) {
        Quarkus.waitForExit();
        return PluginLifecycle.exitStatus();
    }
}
