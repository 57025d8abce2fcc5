package dev.kgpu.exporter.exposition;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import java.util.zip.GZIPOutputStream;

import dev.kgpu.exporter.metrics.MetricFamily;

/**
 * One collection, rendered: the immutable bytes every scrape until the next collection is served.
 * The text form is rendered when the snapshot is made; the OpenMetrics form and the gzip-compressed forms
 * are made at most once, by the first scrape that asks for them.
 *
 * <p>Thread-safety: safe for concurrent use; the bytes handed out must not be modified.
 */
public final class Snapshot {

    private static final Snapshot EMPTY = new Snapshot(Instant.EPOCH, 0, 0, new byte[0],
            format -> format == ExpositionFormat.OPENMETRICS ? "# EOF\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII) : new byte[0]);

    private final Instant collectedAt;
    private final int families;
    private final int series;
    private final byte[] text;
    private final Function<ExpositionFormat, byte[]> renderer;
    private volatile byte[] openMetrics;
    private volatile byte[] textGzip;
    private volatile byte[] openMetricsGzip;

    private Snapshot(Instant collectedAt, int families, int series, byte[] text,
                     Function<ExpositionFormat, byte[]> renderer) {
        this.collectedAt = collectedAt;
        this.families = families;
        this.series = series;
        this.text = text;
        this.renderer = renderer;
    }

    /** What is served before the first collection: no series. */
    public static Snapshot empty() {
        return EMPTY;
    }

    public static Snapshot of(Instant collectedAt, List<MetricFamily> families, ExpositionRenderer renderer) {
        List<MetricFamily> kept = List.copyOf(families);
        int series = kept.stream().mapToInt(f -> f.rows().size()).sum();
        return new Snapshot(collectedAt, kept.size(), series, renderer.render(kept, ExpositionFormat.TEXT),
                format -> renderer.render(kept, format));
    }

    public Instant collectedAt() {
        return collectedAt;
    }

    public int familyCount() {
        return families;
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
        if (plain == null) {
            synchronized (this) {
                if (openMetrics == null) {
                    openMetrics = renderer.apply(ExpositionFormat.OPENMETRICS);
                }
                plain = openMetrics;
            }
        }
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
