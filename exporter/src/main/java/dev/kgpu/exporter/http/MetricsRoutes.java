package dev.kgpu.exporter.http;

import dev.kgpu.exporter.app.Exporter;
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

import java.time.Clock;

/**
 * The HTTP adapter: {@code GET /metrics} writes the current snapshot's prebuilt bytes (text 0.0.4, or
 * OpenMetrics when the {@code Accept} header asks for it; gzip when the client accepts it) on the event
 * loop, with no NVML or kubelet call and no rendering, and answers 503 until the first collection is there;
 * {@code GET /health} answers 200 {@code OK} as dcgm-exporter's does, and 503 when the exporter is not alive
 * ({@link Exporter#alive}).
 */
@ApplicationScoped
public class MetricsRoutes {

    // Strings, not Buffers: a native image initialises this class at build time, and a Buffer's Netty memory
    // cannot be stored in the image
    private static final String OK = "OK";
    private static final String STUCK = "collections stopped or hang";
    private static final String NOT_YET = "no collection yet";

    @Inject
    SnapshotHolder snapshots;
    @Inject
    ExporterMetrics metrics;
    @Inject
    Exporter exporter;

    void routes(@Observes Router router) {
        // before every route, /q/* included: the web config's rate limit, headers, client SANs and basic auth
        HttpServerSettings.web().ifPresent(web ->
                router.route().order(Integer.MIN_VALUE).handler(new WebAccess(web, Clock.systemUTC())));
        router.get("/metrics").handler(this::metrics);
        // dcgm-exporter's liveness path; 503 when the supervisor stopped or its collection hangs
        router.get("/health").handler(context -> {
            boolean alive = exporter.alive();
            context.response().setStatusCode(alive ? 200 : 503)
                    .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8").end(alive ? OK : STUCK);
        });
    }

    void metrics(RoutingContext context) {
        long start = System.nanoTime();
        Snapshot snapshot = snapshots.current();
        if (snapshot.isEmpty()) {
            // nothing collected yet (the first collection runs, or NVML cannot be opened): a 200 with no series
            // would be a successful scrape to Prometheus; a 503 is recorded as a failed one (up == 0)
            context.response().setStatusCode(503).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
                    .end(NOT_YET);
            return;
        }
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
