package dev.kgpu.validator;

import dev.kgpu.agent.Startup;
import dev.kgpu.agent.testing.BadInputs;
import dev.kgpu.validator.config.ValidatorSettings;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The validator's part of the bad-input corpus ({@code bad-inputs/validator.txt}), each row through
 * {@link ValidatorMain#load} in-process: refused with one line naming the setting and the value, or, where
 * NVIDIA's validator accepts it, accepted with one warning.
 */
class BadInputsTest {

    @TempDir
    static Path dir;

    static List<BadInputs.Row> rows() {
        return BadInputs.table("validator", dir);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void eachBadInputIsOneLineNamingTheSettingAndTheValue(BadInputs.Row row) {
        Map<String, String> env = new HashMap<>(Map.of("COMPONENT", "driver"));
        env.putAll(row.env());

        Startup<ValidatorSettings> outcome = ValidatorMain.load(row.argv(), env::get);

        switch (row.outcome()) {
            case REFUSES -> BadInputs.assertRefused(row, outcome, ValidatorSettings.NAME);
            case WARNS -> BadInputs.assertWarned(row, outcome,
                    settings -> settings.warnings().stream().map(Object::toString).toList());
        }
    }
}
