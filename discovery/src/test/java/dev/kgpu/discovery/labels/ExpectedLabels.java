package dev.kgpu.discovery.labels;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads {@code src/test/resources/expected/<name>.txt}: GFD's feature-file form, {@code key=value} per
 * line; lines starting with {@code #} explain the case.
 */
public final class ExpectedLabels {

    private ExpectedLabels() {
    }

    public static Labels read(String name) {
        String resource = "/expected/" + name + ".txt";
        try (InputStream in = ExpectedLabels.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no expected-labels file " + resource);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                int equals = line.indexOf('=');
                if (equals < 1) {
                    throw new IllegalStateException(resource + ": line '" + line + "' is not key=value");
                }
                if (labels.put(line.substring(0, equals), line.substring(equals + 1)) != null) {
                    throw new IllegalStateException(resource + ": key " + line.substring(0, equals) + " appears twice");
                }
            }
            return Labels.of(labels);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
