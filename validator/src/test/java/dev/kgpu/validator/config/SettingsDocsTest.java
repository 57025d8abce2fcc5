package dev.kgpu.validator.config;

import dev.kgpu.agent.settings.SettingsTable;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

/** The README's Flag | Environment variable | Default table names every setting the validator reads. */
class SettingsDocsTest {

    @Test
    void theReadmeNamesEveryFlagAndVariable() {
        SettingsTable.assertDocumented(Path.of("README.md"), "## Settings", ValidatorSettings.SETTINGS);
    }
}
