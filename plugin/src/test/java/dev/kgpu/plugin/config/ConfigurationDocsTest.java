package dev.kgpu.plugin.config;

import dev.kgpu.agent.settings.SettingsTable;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists every flag and variable the device plugin reads, in its own table. */
class ConfigurationDocsTest {

    @Test
    void tableNamesEveryFlagAndVariable() {
        // Surefire runs in the module folder; the docs live at the repository root.
        SettingsTable.assertDocumented(Path.of("..", "docs", "configuration.md"), "## Device plugin", DevicePluginConfig.SETTINGS, true);
    }
}
