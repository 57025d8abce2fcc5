package dev.kgpu.discovery;

import dev.kgpu.config.ConfigException;
import dev.kgpu.config.ConfigLoader;
import dev.kgpu.config.FeatureDiscoveryConfig;
import dev.kgpu.discovery.run.Discovery;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;

/**
 * kgpu's GPU feature discovery, its one entry point. Its lifecycle: load the configuration once (GFD's
 * flags, environment and config file; a bad one: one line, exit 1); start labelling (SIGHUP reloads the
 * config file through the same loader and relabels); wait until the supervisor stops, after one pass with
 * {@code GFD_ONESHOT} or on SIGTERM, which stops it (see {@link Discovery}); exit with its status.
 */
@QuarkusMain
public class DiscoveryMain implements QuarkusApplication {

    /** The binary, in messages. */
    static final String NAME = "kgpu-discovery";

    @Inject
    Discovery discovery;

    @Override
    public int run(String... args) {
        ConfigLoader<FeatureDiscoveryConfig> loader = FeatureDiscoveryConfig.loader(args, ConfigLoader::processEnvironment);
        FeatureDiscoveryConfig config;
        try {
            config = loader.load();
        } catch (ConfigException e) {
            return e.report(NAME);
        }
        discovery.start(config, loader);
        return discovery.awaitExit();
    }
}
