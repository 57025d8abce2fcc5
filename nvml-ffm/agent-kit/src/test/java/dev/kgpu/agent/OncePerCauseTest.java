package dev.kgpu.agent;

import dev.kgpu.agent.testing.LogLines;
import org.junit.jupiter.api.Test;

import java.lang.System.Logger.Level;

import static org.assertj.core.api.Assertions.assertThat;

/** Through the JDK's System.Logger backend (java.util.logging), as the lines are formatted in production. */
class OncePerCauseTest {

    static final System.Logger LOG = System.getLogger(OncePerCauseTest.class.getName());

    @Test
    void aCauseIsLoggedAtItsLevelOnceThenAtDebugAndItsEndOnceAtInfo() {
        OncePerCause nvml = new OncePerCause(LOG, "NVML answers again");
        try (LogLines log = new LogLines(OncePerCauseTest.class)) {
            assertThat(nvml.cleared()).as("nothing to clear yet").isFalse();

            assertThat(nvml.occurred(Level.WARNING, "Driver Not Loaded", "NVML is unavailable ({0}); next try in {1}",
                    "Driver Not Loaded", "PT1S")).isTrue();
            for (int i = 0; i < 100; i++) {
                assertThat(nvml.occurred(Level.WARNING, "Driver Not Loaded", "NVML is unavailable ({0}); next try in {1}",
                        "Driver Not Loaded", "PT2M")).isFalse();
            }
            assertThat(nvml.cause()).hasValue("Driver Not Loaded");
            nvml.occurred(Level.WARNING, "Insufficient Permissions", "NVML is unavailable ({0}); next try in {1}",
                    "Insufficient Permissions", "PT2M");
            assertThat(nvml.cleared()).isTrue();
            assertThat(nvml.cleared()).isFalse();
            assertThat(nvml.cause()).isEmpty();
            nvml.occurred(Level.ERROR, "Driver Not Loaded", "NVML is unavailable ({0})", "Driver Not Loaded");

            assertThat(log.lines()).filteredOn(line -> !line.startsWith("FINE")).containsExactly(
                    "WARNING NVML is unavailable (Driver Not Loaded); next try in PT1S",
                    "WARNING NVML is unavailable (Insufficient Permissions); next try in PT2M",
                    "INFO NVML answers again",
                    "SEVERE NVML is unavailable (Driver Not Loaded)");
            assertThat(log.lines()).filteredOn(line -> line.startsWith("FINE")).hasSize(100)
                    .allMatch(line -> line.equals("FINE NVML is unavailable (Driver Not Loaded); next try in PT2M"));
        }
    }
}
