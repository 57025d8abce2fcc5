package dev.kgpu.discovery;

import dev.kgpu.config.ConfigException;
import dev.kgpu.config.ConfigLoader;
import dev.kgpu.config.FeatureDiscoveryConfig;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.discovery.run.Discovery;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * kgpu's GPU feature discovery: load the configuration (GFD's flags, environment and config file), then
 * label the node until SIGTERM (or once, with {@code GFD_ONESHOT}); SIGHUP reloads and relabels.
 */
@QuarkusMain
public class DiscoveryMain implements QuarkusApplication {

    private static final Logger LOG = Logger.getLogger(DiscoveryMain.class);

    @Inject
    Discovery discovery;

    @Override
    public int run(String... args) {
        ConfigLoader<FeatureDiscoveryConfig> loader = FeatureDiscoveryConfig.loader(args, System::getenv);
        FeatureDiscoveryConfig config;
        try {
            config = loader.load();
        } catch (UsageRequestedException usage) {
            System.out.println(usage.getMessage());
            return usage.exitCode();
        } catch (ConfigException invalid) {
            LOG.error(invalid.getMessage());
            return invalid.exitCode();
        }
        discovery.start(config, loader, System::getenv);
        return discovery.awaitExit();
    }
}
