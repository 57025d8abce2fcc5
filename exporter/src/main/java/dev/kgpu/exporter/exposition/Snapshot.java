package dev.kgpu.exporter.exposition;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import dev.kgpu.exporter.metrics.MetricFamily;

/**
 * One collection, rendered: the immutable bytes every scrape until the next collection is served.
 * Both formats are rendered when the snapshot is made (Prometheus asks for OpenMetrics first, and keeping
 * the rows for a later rendering would hold far more memory than the bytes); the gzip-compressed forms are
 * made at most once, by the first scrape that asks for them.
 *
 * <p>Thread-safety: safe for concurrent use; the bytes handed out must not be modified.
 */
public final class Snapshot {

    private static final Snapshot EMPTY = new Snapshot(Instant.EPOCH, 0, new byte[0],
            "# EOF\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));

    private final Instant collectedAt;
    private final int series;
    private final byte[] text;
    private final byte[] openMetrics;
    private volatile byte[] textGzip;
    private volatile byte[] openMetricsGzip;

    private Snapshot(Instant collectedAt, int series, byte[] text, byte[] openMetrics) {
        this.collectedAt = collectedAt;
        this.series = series;
        this.text = text;
        this.openMetrics = openMetrics;
    }

    /** What is served before the first collection: no series. */
    public static Snapshot empty() {
        return EMPTY;
    }

    public static Snapshot of(Instant collectedAt, List<MetricFamily> families, ExpositionRenderer renderer) {
        int series = families.stream().mapToInt(f -> f.rows().size()).sum();
        return new Snapshot(collectedAt, series, renderer.render(families, ExpositionFormat.TEXT),
                renderer.render(families, ExpositionFormat.OPENMETRICS));
    }

    public Instant collectedAt() {
        return collectedAt;
    }

    public int seriesCount() {
        return series;
    }

    public boolean isEmpty() {
        return this == EMPTY;
    }

    /** The exposition in {@code format}, gzip-compressed when {@code gzip}. */
    public byte[] body(ExpositionFormat format, boolean gzip) {
        if (format == ExpositionFormat.TEXT) {
            if (!gzip) {
                return text;
            }
            byte[] bytes = textGzip;
            if (bytes == null) {
                synchronized (this) {
                    if (textGzip == null) {
                        textGzip = gzip(text);
                    }
                    bytes = textGzip;
                }
            }
            return bytes;
        }
        byte[] plain = openMetrics;
        if (!gzip) {
            return plain;
        }
        byte[] bytes = openMetricsGzip;
        if (bytes == null) {
            synchronized (this) {
                if (openMetricsGzip == null) {
                    openMetricsGzip = gzip(plain);
                }
                bytes = openMetricsGzip;
            }
        }
        return bytes;
    }

    private static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, bytes.length / 8));
        try (GZIPOutputStream zip = new GZIPOutputStream(out, 8192)) {
            zip.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
