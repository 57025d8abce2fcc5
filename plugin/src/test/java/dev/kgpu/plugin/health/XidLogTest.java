package dev.kgpu.plugin.health;

import dev.kgpu.plugin.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class XidLogTest {

    final TestClock clock = new TestClock();
    final List<String> lines = new ArrayList<>();
    final XidLog log = new XidLog(clock, Duration.ofSeconds(10), lines::add);

    @Test
    void aStormOfAThousandXidsIsTwoLinesWithCounts() {
        for (int i = 0; i < 1000; i++) {
            log.xid("GPU-a", i % 2 == 0 ? 79 : 94, "");
        }
        log.flush();
        assertThat(lines).containsExactly("XID 79 on GPU-a");

        clock.advance(Duration.ofSeconds(10));
        log.flush();
        assertThat(lines).containsExactly("XID 79 on GPU-a",
                "999 more XIDs on GPU-a within 10s of the one logged (XID 79 x499, XID 94 x500)");
        log.flush();
        assertThat(lines).hasSize(2);
    }

    @Test
    void eachGpuHasItsOwnWindowAndAnXidAfterTheWindowIsLoggedAtOnce() {
        log.xid("GPU-a", 48, "");
        log.xid("GPU-b", 48, " (GI 1, CI 0)");
        log.xid("GPU-a", 48, "");
        clock.advance(Duration.ofSeconds(11));
        log.xid("GPU-a", 13, "");

        assertThat(lines).containsExactly("XID 48 on GPU-a", "XID 48 on GPU-b (GI 1, CI 0)",
                "1 more XID on GPU-a within 10s of the one logged (XID 48 x1)", "XID 13 on GPU-a");
    }
}
