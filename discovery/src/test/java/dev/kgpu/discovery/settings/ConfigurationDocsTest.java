package dev.kgpu.discovery.settings;

import dev.kgpu.agent.settings.SettingsTable;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists every flag and variable feature discovery reads, in its own table. */
class ConfigurationDocsTest {

    @Test
    void tableNamesEveryFlagAndVariable() {
        // Surefire runs in the module folder; the docs live at the repository root.
        SettingsTable.assertDocumented(Path.of("..", "docs", "configuration.md"), "## Feature discovery", FeatureDiscoveryConfig.SETTINGS, true);
    }
}
