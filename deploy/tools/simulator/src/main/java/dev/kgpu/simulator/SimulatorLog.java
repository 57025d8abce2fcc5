package dev.kgpu.simulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.logging.FileHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The simulator's own logging: nothing on the terminal (which shows progress lines and the summary), everything
 * in {@code logs/simulator.log}: the kubelet simulator, the pod runner, and the API server's request log.
 *
 * <p>The JBoss LogManager is the JDK logging manager here (fabric8's SLF4J and the kubelet simulator's
 * {@code System.Logger} end up in it): {@code -Djava.util.logging.manager=org.jboss.logmanager.LogManager} is
 * on the command line, and {@link #init()} sets it when it is not.
 */
final class SimulatorLog {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    private SimulatorLog() {
    }

    /** Before anything logs: choose the manager and silence the console. */
    static void init() {
        if (System.getProperty("java.util.logging.manager") == null) {
            System.setProperty("java.util.logging.manager", "org.jboss.logmanager.LogManager");
        }
        Logger root = Logger.getLogger("");
        for (Handler handler : root.getHandlers()) {
            root.removeHandler(handler);
        }
        root.setLevel(Level.INFO);
    }

    /** From now on, log to {@code file}. */
    static void toFile(Path file) {
        try {
            FileHandler handler = new FileHandler(file.toString(), true);
            handler.setEncoding("UTF-8");
            handler.setFormatter(new OneLine());
            handler.setLevel(Level.ALL);
            Logger.getLogger("").addHandler(handler);
            // the netty event loops of the gRPC servers are chatty at INFO about Unix sockets
            Logger.getLogger("io.netty").setLevel(Level.WARNING);
            Logger.getLogger("io.grpc").setLevel(Level.WARNING);
            // grpc-java asks for SO_KEEPALIVE, which Unix domain sockets lack: Netty warns on every connection
            Logger.getLogger("io.netty.bootstrap").setLevel(Level.SEVERE);
        } catch (IOException e) {
            throw new UncheckedIOException("could not open the simulator's log " + file, e);
        }
    }

    /** Flushes and closes the log file (its lock file goes with it). */
    static void close() {
        Logger root = Logger.getLogger("");
        for (Handler handler : root.getHandlers()) {
            if (handler instanceof FileHandler) {
                root.removeHandler(handler);
                handler.close();
            }
        }
    }

    private static final class OneLine extends Formatter {
        @Override
        public String format(LogRecord record) {
            StringBuilder line = new StringBuilder()
                    .append(TIME.format(Instant.ofEpochMilli(record.getMillis()))).append(' ')
                    .append(String.format("%-7s", record.getLevel().getName())).append(' ')
                    .append('[').append(shortName(record.getLoggerName())).append("] ")
                    .append(formatMessage(record)).append(System.lineSeparator());
            if (record.getThrown() != null) {
                java.io.StringWriter trace = new java.io.StringWriter();
                record.getThrown().printStackTrace(new java.io.PrintWriter(trace));
                line.append(trace);
            }
            return line.toString();
        }

        private static String shortName(String name) {
            if (name == null) {
                return "";
            }
            int dot = name.lastIndexOf('.');
            return dot < 0 ? name : name.substring(dot + 1);
        }
    }
}
