package dev.kgpu.exporter.http;

import dev.kgpu.exporter.app.ExporterMetrics;
import dev.kgpu.exporter.app.SnapshotHolder;
import dev.kgpu.exporter.exposition.ExpositionFormat;
import dev.kgpu.exporter.exposition.Snapshot;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * The HTTP adapter: {@code GET /metrics} writes the current snapshot's prebuilt bytes (text 0.0.4, or
 * OpenMetrics when the {@code Accept} header asks for it; gzip when the client accepts it) on the event
 * loop, with no NVML or kubelet call and no rendering; {@code GET /health} answers 200 {@code OK} as
 * dcgm-exporter's does.
 */
@ApplicationScoped
public class MetricsRoutes {

    private static final Buffer OK = Buffer.buffer("OK");

    @Inject
    SnapshotHolder snapshots;
    @Inject
    ExporterMetrics metrics;

    void routes(@Observes Router router) {
        router.get("/metrics").handler(this::metrics);
        router.get("/health").handler(context -> context.response()
                .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8").end(OK));
    }

    void metrics(RoutingContext context) {
        long start = System.nanoTime();
        Snapshot snapshot = snapshots.current();
        ExpositionFormat format = ExpositionFormat.forAccept(context.request().getHeader(HttpHeaders.ACCEPT));
        String encoding = context.request().getHeader(HttpHeaders.ACCEPT_ENCODING);
        boolean gzip = encoding != null && encoding.contains("gzip");
        byte[] body = snapshot.body(format, gzip);
        HttpServerResponse response = context.response()
                .putHeader(HttpHeaders.CONTENT_TYPE, format.contentType());
        if (gzip) {
            response.putHeader(HttpHeaders.CONTENT_ENCODING, "gzip");
        }
        response.end(Buffer.buffer(body));
        metrics.scrape(System.nanoTime() - start);
    }
}
