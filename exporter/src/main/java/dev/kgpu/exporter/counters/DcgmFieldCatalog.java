package dev.kgpu.exporter.counters;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Every field name DCGM knows (canonical names and deprecated aliases) with its numeric id, so that a
 * counters file naming a real DCGM field kgpu does not serve can be told from a typo.
 */
public final class DcgmFieldCatalog {

    private static final String RESOURCE = "dcgm-fields.tsv";
    private static final DcgmFieldCatalog INSTANCE = load();

    private final Map<String, Integer> ids;

    private DcgmFieldCatalog(Map<String, Integer> ids) {
        this.ids = Map.copyOf(ids);
    }

    public static DcgmFieldCatalog get() {
        return INSTANCE;
    }

    public OptionalInt id(String fieldName) {
        Integer id = ids.get(fieldName);
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    public int size() {
        return ids.size();
    }

    private static DcgmFieldCatalog load() {
        Map<String, Integer> ids = new HashMap<>();
        try (InputStream in = DcgmFieldCatalog.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " is missing from the exporter's jar");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                int tab = line.indexOf('\t');
                ids.put(line.substring(0, tab), Integer.parseInt(line.substring(tab + 1).strip()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new DcgmFieldCatalog(ids);
    }
}
