package dev.kgpu.exporter.exposition;

import dev.kgpu.exporter.config.HostnameLabel;
import dev.kgpu.exporter.counters.MetricType;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.exporter.metrics.MetricFamily;
import dev.kgpu.exporter.metrics.MetricRow;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Writes metric families the way dcgm-exporter's template does:
 * <pre>
 * # HELP NAME help
 * # TYPE NAME type
 * NAME{gpu="0",UUID="GPU-…",pci_bus_id="…",device="nvidia0",modelName="…"[,GPU_I_PROFILE="…",GPU_I_ID="…"][,Hostname="…"][,labels…][,attributes…]} value
 * </pre>
 * with no timestamps ({@code uuid}, {@code pod_name}, {@code pod_namespace}, {@code container_name} with
 * {@code --use-old-namespace}). Unlike the template it escapes label values ({@code \}, {@code "}, newline), so a
 * strange model name cannot break the exposition.
 *
 * <p>OpenMetrics differs only where the format demands: a counter family whose name does not end in
 * {@code _total} is typed {@code unknown} (OpenMetrics would otherwise rename its series to
 * {@code NAME_total}, and dashboards written for dcgm-exporter would lose them), a counter named
 * {@code …_total} is typed {@code counter} under the family name without the suffix, histogram and
 * summary rows (single samples) are typed {@code unknown}, help text escapes {@code "}, and the
 * exposition ends with {@code # EOF}.
 *
 * <p>Thread-safety: stateless apart from its settings; safe for concurrent use.
 */
public final class ExpositionRenderer {

    /** dcgm-exporter 1.x's names of the pod attributes, with {@code --use-old-namespace}. */
    private static final Map<String, String> OLD_ATTRIBUTES = Map.of(
            "pod", "pod_name", "namespace", "pod_namespace", "container", "container_name");

    private final Optional<HostnameLabel> hostname;
    private final boolean replaceBlanksInModelName;
    private final boolean oldNamespace;

    public ExpositionRenderer(Optional<HostnameLabel> hostname, boolean replaceBlanksInModelName) {
        this(hostname, replaceBlanksInModelName, false);
    }

    /**
     * @param oldNamespace dcgm-exporter's {@code --use-old-namespace}: {@code uuid} for {@code UUID}, and
     *                     {@code pod_name}, {@code pod_namespace}, {@code container_name} for the pod attributes
     */
    public ExpositionRenderer(Optional<HostnameLabel> hostname, boolean replaceBlanksInModelName, boolean oldNamespace) {
        this.hostname = hostname;
        this.replaceBlanksInModelName = replaceBlanksInModelName;
        this.oldNamespace = oldNamespace;
    }

    public byte[] render(List<MetricFamily> families, ExpositionFormat format) {
        StringBuilder out = new StringBuilder(estimate(families));
        Map<Entity, String> prefixes = new HashMap<>();
        boolean openMetrics = format == ExpositionFormat.OPENMETRICS;
        for (MetricFamily family : families) {
            String name = family.counter().fieldName();
            String familyName = name;
            String type = family.counter().type().word();
            if (openMetrics) {
                MetricType t = family.counter().type();
                if (t == MetricType.COUNTER && name.endsWith("_total") && name.length() > "_total".length()) {
                    familyName = name.substring(0, name.length() - "_total".length());
                } else if (t != MetricType.GAUGE) {
                    type = "unknown";
                }
            }
            out.append("# HELP ").append(familyName).append(' ');
            escapeHelp(out, family.counter().help(), openMetrics);
            out.append('\n');
            out.append("# TYPE ").append(familyName).append(' ').append(type).append('\n');
            for (MetricRow row : family.rows()) {
                out.append(name).append('{');
                out.append(prefixes.computeIfAbsent(row.entity(), this::entityLabels));
                row.labels().forEach((key, value) -> appendLabel(out.append(','), key, value));
                attributes(row).forEach((key, value) -> appendLabel(out.append(','), key, value));
                out.append("} ").append(row.value()).append('\n');
            }
        }
        if (openMetrics) {
            out.append("# EOF\n");
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private String entityLabels(Entity entity) {
        StringBuilder labels = new StringBuilder(160);
        appendLabel(labels, "gpu", Integer.toString(entity.gpuIndex()));
        appendLabel(labels.append(','), oldNamespace ? "uuid" : "UUID", entity.gpuUuid());
        appendLabel(labels.append(','), "pci_bus_id", entity.pciBusId());
        appendLabel(labels.append(','), "device", entity.device());
        appendLabel(labels.append(','), "modelName", modelName(entity.modelName()));
        entity.gpuInstance().ifPresent(instance -> {
            appendLabel(labels.append(','), "GPU_I_PROFILE", instance.profile());
            appendLabel(labels.append(','), "GPU_I_ID", Integer.toString(instance.id()));
        });
        hostname.ifPresent(host -> appendLabel(labels.append(','), host.name(), host.value()));
        return labels.toString();
    }

    /** The row's attributes, sorted by name; under the 1.x names with {@code --use-old-namespace}. */
    private Map<String, String> attributes(MetricRow row) {
        if (!oldNamespace || row.attributes().isEmpty()) {
            return row.attributes();
        }
        TreeMap<String, String> renamed = new TreeMap<>();
        row.attributes().forEach((key, value) -> renamed.put(OLD_ATTRIBUTES.getOrDefault(key, key), value));
        return renamed;
    }

    private String modelName(String model) {
        if (!replaceBlanksInModelName) {
            return model;
        }
        return String.join("-", model.strip().split("\\s+"));
    }

    private static void appendLabel(StringBuilder out, String key, String value) {
        out.append(key).append("=\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '"' -> out.append("\\\"");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
        out.append('"');
    }

    private static void escapeHelp(StringBuilder out, String help, boolean openMetrics) {
        for (int i = 0; i < help.length(); i++) {
            char c = help.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '"' -> out.append(openMetrics ? "\\\"" : "\"");
                default -> out.append(c);
            }
        }
    }

    private static int estimate(List<MetricFamily> families) {
        int rows = 0;
        for (MetricFamily family : families) {
            rows += family.rows().size();
        }
        return 256 * families.size() + 280 * rows;
    }
}
