package dev.kgpu.validator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.kgpu.validator.core.NodeStatusMetrics;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code COMPONENT=metrics}: gpu-operator's node-status exporter. One scheduler thread refreshes
 * {@link NodeStatusMetrics} on NVIDIA's periods (status files and the device plugin every 30 s, the driver and
 * the PCI bus every 60 s, each first at start), and {@code GET /metrics} on {@code METRICS_PORT} serves the last
 * readings; a scrape never waits for a reading.
 */
public final class NodeStatusExporter implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(NodeStatusExporter.class.getName());

    /** NVIDIA's periods ({@code metrics.go}). */
    public record Periods(Duration statusFiles, Duration driver, Duration devicePlugin, Duration pci) {
        public static final Periods NVIDIA = new Periods(Duration.ofSeconds(30), Duration.ofSeconds(60),
                Duration.ofSeconds(30), Duration.ofSeconds(60));
    }

    private final NodeStatusMetrics metrics;
    private final ScheduledExecutorService scheduler;
    private final HttpServer server;

    private NodeStatusExporter(NodeStatusMetrics metrics, ScheduledExecutorService scheduler, HttpServer server) {
        this.metrics = metrics;
        this.scheduler = scheduler;
        this.server = server;
    }

    /**
     * Starts the readings and the endpoint.
     *
     * @param port the port to serve on, on every address; 0 picks a free one ({@link #port()})
     * @throws UncheckedIOException when the port cannot be bound
     */
    public static NodeStatusExporter start(NodeStatusMetrics metrics, int port, Periods periods) {
        Objects.requireNonNull(metrics, "metrics");
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("METRICS_PORT was '" + port + "' but it could not be listened on: " + e.getMessage(), e);
        }
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "node-status-exporter");
            thread.setDaemon(true);
            return thread;
        });
        NodeStatusExporter exporter = new NodeStatusExporter(metrics, scheduler, server);
        every(scheduler, periods.statusFiles(), metrics::refreshStatusFiles);
        every(scheduler, periods.devicePlugin(), metrics::refreshDevicePlugin);
        every(scheduler, periods.driver(), () -> {
            try {
                metrics.refreshDriver();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        every(scheduler, periods.pci(), metrics::refreshPci);
        server.createContext("/", exporter::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        LOG.log(System.Logger.Level.INFO, "node-status exporter for node {0} listening on :{1,number,#}/metrics",
                metrics.node(), exporter.port());
        return exporter;
    }

    private static void every(ScheduledExecutorService scheduler, Duration period, Runnable reading) {
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                reading.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "metrics: a reading failed", e);
            }
        }, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestURI().getPath().equals("/metrics")) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            if (!List.of("GET", "HEAD").contains(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = metrics.exposition().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** The port served on. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        server.stop(0);
    }
}
