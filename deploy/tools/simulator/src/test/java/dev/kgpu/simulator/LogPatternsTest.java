package dev.kgpu.simulator;

import dev.kgpu.agent.testing.LogPatterns;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Every log call is kgpu's one style, a MessageFormat pattern and its parameters ({@link LogPatterns}). */
class LogPatternsTest {

    @Test
    void everyLogCallIsAPatternThatPrintsItsParameters() {
        assertThat(LogPatterns.problems(Path.of("src/main/java"))).isEmpty();
    }
}
