package dev.kgpu.plugin;

import dev.kgpu.agent.Startup;
import dev.kgpu.agent.testing.BadInputs;
import dev.kgpu.plugin.settings.PluginSettings;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.List;

/**
 * The device plugin's part of the bad-input corpus ({@code bad-inputs/plugin.txt}, with the config files of
 * {@code bad-inputs/config-files.txt}), each row through {@link PluginMain#load} in-process: refused with one
 * line naming the setting and the value, or accepted with one warning where NVIDIA accepts it.
 * {@code BadInputsIT} runs a few of them, and SIGHUP with them, against the packaged plugin.
 */
class BadInputsTest {

    @TempDir
    static Path dir;

    static List<BadInputs.Row> rows() {
        return BadInputs.table("plugin", dir);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void eachBadInputIsOneLineNamingTheSettingAndTheValue(BadInputs.Row row) {
        Startup<PluginSettings> outcome = PluginMain.load(row.argv(), row.env()::get);

        switch (row.outcome()) {
            case REFUSES -> BadInputs.assertRefused(row, outcome, PluginMain.NAME);
            case WARNS -> BadInputs.assertWarned(row, outcome,
                    settings -> settings.warnings().stream().map(Object::toString).toList());
        }
    }
}
