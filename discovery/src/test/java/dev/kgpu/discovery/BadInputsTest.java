package dev.kgpu.discovery;

import dev.kgpu.agent.Startup;
import dev.kgpu.agent.testing.BadInputs;
import dev.kgpu.discovery.labels.NodeSnapshot;
import dev.kgpu.discovery.node.MachineType;
import dev.kgpu.discovery.settings.FeatureDiscoveryConfig;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Feature discovery's part of the bad-input corpus ({@code bad-inputs/discovery.txt}, with the config files of
 * {@code bad-inputs/config-files.txt}), each row through {@link DiscoveryMain#load} in-process; and the
 * machine-type files, which GFD reads at every pass: it labels {@code unknown} and says why in one line.
 */
class BadInputsTest {

    @TempDir
    static Path dir;

    static List<BadInputs.Row> rows() {
        return BadInputs.table("discovery", dir);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void eachBadInputIsOneLineNamingTheSettingAndTheValue(BadInputs.Row row) {
        Map<String, String> env = new HashMap<>(Map.of("NODE_NAME", "node-a"));
        env.putAll(row.env());

        Startup<FeatureDiscoveryConfig> outcome = DiscoveryMain.load(row.argv(), env::get);

        switch (row.outcome()) {
            case REFUSES -> BadInputs.assertRefused(row, outcome, DiscoveryMain.NAME);
            case WARNS -> BadInputs.assertWarned(row, outcome,
                    config -> config.warnings().stream().map(Object::toString).toList());
        }
    }

    @ParameterizedTest(name = "GFD_MACHINE_TYPE_FILE={0}")
    @ValueSource(strings = {"/dev/zero", "{dir}", "{dir}/missing", "{random.bin}", "{sparse-60MiB.bin}", "/proc/self/mem"})
    void anUnreadableMachineTypeFileIsUnknownWithOneLine(String input) {
        Path file = Path.of(input.replace("{dir}", dir.toString()).replace("{random.bin}",
                BadInputs.file("random.bin", dir).toString()).replace("{sparse-60MiB.bin}",
                BadInputs.file("sparse-60MiB.bin", dir).toString()));

        MachineType.Reading reading = MachineType.read(Optional.of(file));

        assertThat(reading.name()).isEqualTo(NodeSnapshot.UNKNOWN_MACHINE);
        assertThat(reading.problem()).hasValueSatisfying(line -> assertThat(line)
                .startsWith("GFD_MACHINE_TYPE_FILE was '" + file + "' but it must name ")
                .doesNotContain("\n"));
    }
}
