package dev.kgpu.plugin.app;

import org.jboss.logging.Logger;
import sun.misc.Signal;

/**
 * SIGHUP, which NVIDIA's config-manager sidecar sends after switching the config file. SIGTERM and SIGINT
 * stay with Quarkus, whose shutdown stops the supervisor.
 */
final class Signals {

    private static final Logger LOG = Logger.getLogger(Signals.class);

    private Signals() {
    }

    static void onHangup(Runnable action) {
        try {
            Signal.handle(new Signal("HUP"), signal -> {
                LOG.info("SIGHUP: reloading the configuration");
                action.run();
            });
        } catch (IllegalArgumentException e) {
            LOG.warnf("SIGHUP cannot be handled here (%s); reload by restarting the plugin", e.getMessage());
        }
    }
}
