package dev.kgpu.exporter.counters;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The {@code err_msg} text dcgm-exporter prints beside an XID code. */
public final class XidMessages {

    /** What dcgm-exporter prints for a code past the end of its table. */
    public static final String UNKNOWN = "Unknown Error";

    private static final List<String> TEXTS = load();

    private XidMessages() {
    }

    public static String of(long code) {
        return code >= 0 && code < TEXTS.size() ? TEXTS.get((int) code) : UNKNOWN;
    }

    private static List<String> load() {
        List<String> texts = new ArrayList<>();
        try (InputStream in = XidMessages.class.getResourceAsStream("xid-messages.tsv")) {
            if (in == null) {
                throw new IllegalStateException("resource xid-messages.tsv is missing from the exporter's jar");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                int tab = line.indexOf('\t');
                int code = Integer.parseInt(line.substring(0, tab));
                if (code != texts.size()) {
                    throw new IllegalStateException("xid-messages.tsv skips from " + (texts.size() - 1) + " to " + code);
                }
                texts.add(line.substring(tab + 1));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.copyOf(texts);
    }
}
