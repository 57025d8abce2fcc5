package dev.kgpu.config;

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
    void tableNamesEveryFlagAndVariable(Agent agent) {
        // Surefire runs in the module folder; the docs live at the repository root.
        SettingsTable.assertDocumented(Path.of("..", "..", "docs", "configuration.md"), agent.heading(), agent.settings(), true);
    }
}
