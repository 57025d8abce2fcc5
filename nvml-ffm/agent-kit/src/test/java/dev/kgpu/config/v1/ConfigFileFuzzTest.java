package dev.kgpu.config.v1;

import dev.kgpu.agent.testing.Fuzz;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The YAML config reader fuzzed: whatever the text, {@link ConfigFile#parse} returns a config or throws
 * {@link InvalidConfigException} (nothing else, no error), whose message is one line of bounded length; and
 * a valid config round-trips: the values written are the values read.
 */
class ConfigFileFuzzTest {

    static final List<String> SAMPLES = List.of("full.yaml", "mps.yaml", "time-slicing.yaml", "per-device-sharing.yaml",
            "dp-example-config0.yaml", "gpu-operator-time-slicing.yaml").stream().map(ConfigFileTest::resource).toList();

    /** YAML's syntax and config v1's words, and what breaks them. */
    static final List<String> TOKENS = List.of("version", "v1", "flags", "migStrategy", "mixed", "single", "none",
            "sharing", "timeSlicing", "mps", "resources", "name", "replicas", "nvidia.com/gpu", "devices", "rename",
            "renameByDefault", "failRequestsGreaterThanOne", "plugin", "deviceListStrategy", "gfd", "sleepInterval",
            "imex", "channelIDs", ": ", ":", " ", "  ", "\n", "\n  ", "\n    ", "- ", "-", "[", "]", "{", "}", ", ",
            "&a ", "*a", "&b ", "*b", "!!str ", "!!int ", "!!binary ", "!custom ", "'", "\"", "#", "<<: ", "? ",
            "|", ">", "---\n", "...\n", "%YAML 1.1\n", "2", "-1", "0x10", "0o17", "1e9", "1_000", "~", "null", "yes",
            "60s", "infinite", "\t", "\r", "\u0000", "\u0007", "\u00e9", "\ufeff", "\ud800", "\u2028", "\\");

    static final int MAX_MESSAGE = 16_384;

    static void parsesOrRefusesWithOneLine(String text) {
        try {
            ConfigFile file = ConfigFile.parse(text, "fuzz.yaml");
            assertThat(file.config()).isNotNull();
        } catch (InvalidConfigException e) {
            assertThat(e.getMessage()).startsWith("invalid configuration: ").doesNotContain("\n", "\r")
                    .hasSizeLessThan(MAX_MESSAGE);
            assertThat(e.failures()).isNotEmpty().allSatisfy(f -> assertThat(f.message()).hasSizeLessThan(1_024));
        }
    }

    @Test
    void anyTokenSoupParsesOrIsRefusedWithOneLine() {
        Fuzz.theory(1_000).forAll(Fuzz.tokens(TOKENS, 0, 60)).checkAssert(ConfigFileFuzzTest::parsesOrRefusesWithOneLine);
    }

    @Test
    void cutAndCorruptedRealConfigsParseOrAreRefusedWithOneLine() {
        Fuzz.theory(1_000).forAll(Fuzz.mutated(SAMPLES, TOKENS, 8)).checkAssert(ConfigFileFuzzTest::parsesOrRefusesWithOneLine);
    }

    @Test
    void anyTextAtAllParsesOrIsRefusedWithOneLine() {
        Fuzz.theory(500).forAll(Fuzz.anyText(400)).checkAssert(ConfigFileFuzzTest::parsesOrRefusesWithOneLine);
    }

    record Values(MigStrategy mig, boolean failOnInitError, boolean passDeviceSpecs, DeviceIdStrategy ids,
                  String driverRoot, int replicas, String resource) {
        String yaml() {
            return "version: v1\nflags:\n  migStrategy: " + mig.wireName() + "\n  failOnInitError: " + failOnInitError
                    + "\n  nvidiaDriverRoot: \"" + driverRoot + "\"\n  plugin:\n    passDeviceSpecs: " + passDeviceSpecs
                    + "\n    deviceIDStrategy: " + ids.wireName() + "\nsharing:\n  timeSlicing:\n    resources:\n"
                    + "    - name: " + resource + "\n      replicas: " + replicas + "\n";
        }
    }

    @Test
    void aValidConfigRoundTrips() {
        Gen<String> root = Fuzz.tokens(List.of("run", "nvidia", "driver", "host", "a-b", "x_y", "1", "/"), 0, 6)
                .map(path -> "/" + path);
        Gen<Values> values = Generate.enumValues(MigStrategy.class).zip(Generate.booleans(), Generate.booleans(),
                        Generate.enumValues(DeviceIdStrategy.class), (mig, fail, specs, ids) -> new Values(mig, fail, specs,
                                ids, "/", 2, "nvidia.com/gpu"))
                .zip(root, Generate.range(2, 1_000_000), Generate.pick(List.of("nvidia.com/gpu", "gpu")),
                        (v, r, n, name) -> new Values(v.mig(), v.failOnInitError(), v.passDeviceSpecs(), v.ids(), r, n, name));

        Fuzz.theory(500).forAll(values).checkAssert(v -> {
            Config config = ConfigFile.parse(v.yaml(), "round-trip.yaml").config();

            assertThat(config.flags().migStrategy()).isEqualTo(v.mig());
            assertThat(config.flags().failOnInitError()).isEqualTo(v.failOnInitError());
            assertThat(config.flags().nvidiaDriverRoot()).isEqualTo(v.driverRoot());
            assertThat(config.flags().plugin().passDeviceSpecs()).isEqualTo(v.passDeviceSpecs());
            assertThat(config.flags().plugin().deviceIDStrategy()).isEqualTo(v.ids());
            assertThat(config.sharing().timeSlicing().orElseThrow().resources()).singleElement().satisfies(r -> {
                assertThat(r.name()).isEqualTo(ResourceName.of(v.resource()));
                assertThat(r.replicas()).isEqualTo(v.replicas());
            });
            // and what kgpu prints of it reads back the same
            assertThat(ConfigFile.parse(ConfigJson.toJson(config, ConfigJson.Blocks.DEVICE_PLUGIN), "json").config()
                    .sharing()).isEqualTo(config.sharing());
        });
    }

    @Test
    void failuresStayOneLineWhateverTheValueHolds() {
        Fuzz.theory(1_000).forAll(Fuzz.anyText(300), Fuzz.anyText(300)).checkAssert((property, value) -> {
            String message = new ValidationFailure(property.isEmpty() ? "p" : property, value, "must be x").message();
            assertThat(message).doesNotContain("\n", "\r", "\u2028", "\u2029");
        });
    }
}
