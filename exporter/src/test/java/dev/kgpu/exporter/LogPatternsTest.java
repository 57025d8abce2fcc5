package dev.kgpu.exporter;

import dev.kgpu.agent.testing.LogPatterns;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Every log call with parameters prints them: no printf placeholder, no single quote hiding one ({@link LogPatterns}). */
class LogPatternsTest {

    @Test
    void everyLogPatternPrintsItsParameters() {
        assertThat(LogPatterns.problems(Path.of("src/main/java"))).isEmpty();
    }
}
