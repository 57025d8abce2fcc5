package dev.kgpu.agent.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * The lines one class logs through the JDK's System.Logger backend (java.util.logging), formatted as in production:
 * {@code LEVEL message}. Close it to stop capturing. Shared with the agents' tests (test-jar).
 */
public final class LogLines implements AutoCloseable {

    private final Logger jul;
    private final Level before;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        final SimpleFormatter formatter = new SimpleFormatter();

        @Override
        public void publish(LogRecord record) {
            lines.add(record.getLevel() + " " + formatter.formatMessage(record)
                    + (record.getThrown() == null ? "" : " [" + record.getThrown() + "]"));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    /** Captures every level, DEBUG (FINE) included. */
    public LogLines(Class<?> source) {
        jul = Logger.getLogger(source.getName());
        before = jul.getLevel();
        jul.setLevel(Level.ALL);
        handler.setLevel(Level.ALL);
        jul.addHandler(handler);
    }

    public List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void close() {
        jul.removeHandler(handler);
        jul.setLevel(before);
    }
}
