package dev.kgpu.agent;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import static org.assertj.core.api.Assertions.assertThat;

/** Through the JDK's System.Logger backend (java.util.logging), as the lines are formatted in production. */
class ProbeLogTest {

    final Logger jul = Logger.getLogger(ProbeLog.class.getName());
    final List<String> lines = new CopyOnWriteArrayList<>();
    final Handler handler = new Handler() {
        final SimpleFormatter formatter = new SimpleFormatter();

        @Override
        public void publish(LogRecord record) {
            lines.add(record.getLevel() + " " + formatter.formatMessage(record));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void capture() {
        jul.addHandler(handler);
    }

    @AfterEach
    void release() {
        jul.removeHandler(handler);
    }

    @Test
    void logsTheFirstAnswerAndEachChangeOnly() {
        ProbeLog log = new ProbeLog("readiness", "gpu-labels");

        log.answered(false, () -> "no labelling pass has finished yet");
        log.answered(false, () -> "no labelling pass has finished yet");
        log.answered(true, () -> "unused");
        log.answered(true, () -> "unused");
        log.answered(false, () -> "the API server's answer was 'connection refused'");
        for (int i = 0; i < 1_000; i++) {
            log.answered(false, () -> "the API server's answer was 'connection refused'");
        }

        assertThat(lines).containsExactly(
                "INFO readiness 'gpu-labels' is DOWN: no labelling pass has finished yet",
                "INFO readiness 'gpu-labels' is UP",
                "WARNING readiness 'gpu-labels' is DOWN: the API server's answer was 'connection refused'");
    }
}
