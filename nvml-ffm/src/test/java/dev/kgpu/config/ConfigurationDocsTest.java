package dev.kgpu.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** docs/configuration.md lists every flag and variable each agent reads, in that agent's own table. */
class ConfigurationDocsTest {

    record Agent(String description, String heading, List<Setting<?>> settings) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Agent> agents() {
        return Stream.of(
                new Agent("device plugin", "## Device plugin", DevicePluginConfig.SETTINGS),
                new Agent("feature discovery", "## Feature discovery", FeatureDiscoveryConfig.SETTINGS));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("agents")
    void tableNamesEveryFlagAndVariable(Agent agent) throws IOException {
        // Surefire runs in the module folder; the docs live at the repository root.
        String docs = Files.readString(Path.of("..", "docs", "configuration.md"));
        int start = docs.indexOf(agent.heading());
        assertThat(start).as("section %s", agent.heading()).isNotNegative();
        int end = docs.indexOf("\n## ", start + 1);
        String section = docs.substring(start, end < 0 ? docs.length() : end);
        for (Setting<?> setting : agent.settings()) {
            for (String flag : setting.flags()) {
                assertThat(section).contains("`" + (flag.length() == 1 ? "-" : "--") + flag + "`");
            }
            for (String env : setting.envs()) {
                assertThat(section).contains("`" + env + "`");
            }
            setting.field().ifPresent(field -> assertThat(section).contains("`" + field.path() + "`"));
        }
    }
}
