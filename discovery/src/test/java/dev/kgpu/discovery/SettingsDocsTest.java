package dev.kgpu.discovery;

import dev.kgpu.agent.settings.SettingsTable;
import dev.kgpu.discovery.settings.FeatureDiscoveryConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

/** The README's Flag | Environment Variable | Default table names every setting discovery reads. */
class SettingsDocsTest {

    @Test
    void theReadmeNamesEveryFlagAndVariable() {
        SettingsTable.assertDocumented(Path.of("README.md"), "## Configuration", FeatureDiscoveryConfig.SETTINGS);
    }
}
