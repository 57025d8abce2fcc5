package dev.kgpu.exporter;

import dev.kgpu.agent.Startup;
import dev.kgpu.agent.testing.BadInputs;
import dev.kgpu.exporter.config.ExporterConfig;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.fail;

/**
 * The exporter's part of the bad-input corpus ({@code bad-inputs/exporter.txt}): dcgm-exporter's flags and
 * variables, counters files and web config files, each row through {@link ExporterMain#load} in-process, refused
 * with one line naming the setting and the value. {@code LifecycleIT} and {@code WebConfigIT} run such refusals,
 * and SIGHUP with a bad counters file, against the packaged exporter.
 */
class BadInputsTest {

    @TempDir
    static Path dir;

    static List<BadInputs.Row> rows() {
        return BadInputs.table("exporter", dir);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void eachBadInputIsOneLineNamingTheSettingAndTheValue(BadInputs.Row row) {
        Startup<ExporterConfig> outcome = ExporterMain.load(row.argv(), row.env()::get);

        switch (row.outcome()) {
            case REFUSES -> BadInputs.assertRefused(row, outcome, ExporterConfig.NAME);
            case WARNS -> fail("%s: the exporter's settings carry no warnings to check; refuse or leave the row out",
                    row.source());
        }
    }
}
