package dev.kgpu.gpucheck.compare;

import dev.kgpu.gpucheck.node.Fields;
import dev.kgpu.gpucheck.node.NodeValues.GpuValues;
import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.node.Val;
import dev.kgpu.sim.prometheus.ExpositionParser;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One scrape of the exporter against the node: every default series (the exporter's built-in
 * {@code default-counters.csv}) present for every GPU where nvml-ffm reads its source, none where it does
 * not, each value within tolerance of nvidia-smi's (or, for what nvidia-smi does not print, of nvml-ffm's),
 * and each GPU's identity labels right.
 */
public final class ExporterSeries {

    public static final String STEP = "exporter";
    public static final String DEFAULT_COUNTERS = "dev/kgpu/exporter/counters/default-counters.csv";

    /** How one default field is checked: the {@link Fields} key it comes from, and the value's rule. */
    public record Rule(String key, Kind kind) {
    }

    public enum Kind {
        /** Compared with nvidia-smi's value (nvml-ffm's where nvidia-smi has none), tolerance of {@link NodeComparison}. */
        SMI_VALUE,
        /** Like {@link #SMI_VALUE}, but not served for a GPU with MIG on (reported per GPU instance without it). */
        SMI_VALUE_NOT_MIG,
        /** Framebuffer: compared on GPUs with MIG off only (with MIG on each series is one instance's). */
        FRAMEBUFFER,
        /** A counter: at least nvml-ffm's earlier reading. */
        COUNTER,
        /** Present where nvml-ffm reads the source (a number or a text); any value of at least 0. */
        PRESENT,
        /** A GPM ratio: present where GPM works, a value from 0 to 1. */
        RATIO,
        /** A GPM rate: present where GPM works, at least 0. */
        RATE,
        /** The last XID: on every GPU, 0 since nothing injects one on a real GPU. */
        XID,
        /** Yes/No as 1/0. */
        FLAG
    }

    /** The rule of every field the built-in counters file holds (a unit test keeps them in step). */
    public static final Map<String, Rule> RULES = rules();

    private ExporterSeries() {
    }

    private static Map<String, Rule> rules() {
        Map<String, Rule> r = new LinkedHashMap<>();
        r.put("DCGM_FI_DEV_SM_CLOCK", new Rule(Fields.SM_CLOCK, Kind.SMI_VALUE));
        r.put("DCGM_FI_DEV_MEM_CLOCK", new Rule(Fields.MEM_CLOCK, Kind.SMI_VALUE));
        r.put("DCGM_FI_DEV_MEMORY_TEMP", new Rule(Fields.MEMORY_TEMP, Kind.SMI_VALUE));
        r.put("DCGM_FI_DEV_GPU_TEMP", new Rule(Fields.GPU_TEMP, Kind.SMI_VALUE));
        r.put("DCGM_FI_DEV_POWER_USAGE", new Rule(Fields.POWER_DRAW, Kind.SMI_VALUE));
        r.put("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", new Rule(Fields.ENERGY_MJ, Kind.COUNTER));
        r.put("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", new Rule(Fields.REPLAY_COUNTER, Kind.SMI_VALUE));
        r.put("DCGM_FI_DEV_GPU_UTIL", new Rule(Fields.GPU_UTIL, Kind.SMI_VALUE_NOT_MIG));
        r.put("DCGM_FI_DEV_MEM_COPY_UTIL", new Rule(Fields.MEMORY_UTIL, Kind.SMI_VALUE_NOT_MIG));
        r.put("DCGM_FI_DEV_ENC_UTIL", new Rule(Fields.ENCODER_UTIL, Kind.SMI_VALUE_NOT_MIG));
        r.put("DCGM_FI_DEV_DEC_UTIL", new Rule(Fields.DECODER_UTIL, Kind.SMI_VALUE_NOT_MIG));
        r.put("DCGM_FI_DEV_XID_ERRORS", new Rule(Fields.UUID, Kind.XID));
        r.put("DCGM_FI_DEV_FB_FREE", new Rule(Fields.FB_FREE, Kind.FRAMEBUFFER));
        r.put("DCGM_FI_DEV_FB_USED", new Rule(Fields.FB_USED, Kind.FRAMEBUFFER));
        r.put("DCGM_FI_DEV_FB_RESERVED", new Rule(Fields.FB_RESERVED, Kind.FRAMEBUFFER));
        r.put("DCGM_FI_DEV_FB_TOTAL", new Rule(Fields.FB_TOTAL, Kind.FRAMEBUFFER));
        r.put("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", new Rule(Fields.NVLINK_DATA_KIB, Kind.PRESENT));
        r.put("DCGM_FI_DEV_VGPU_LICENSE_STATUS", new Rule(Fields.VGPU_LICENSE, Kind.PRESENT));
        r.put("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", new Rule(Fields.REMAPPED_UNCORRECTABLE, Kind.SMI_VALUE));
        r.put("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", new Rule(Fields.REMAPPED_CORRECTABLE, Kind.SMI_VALUE));
        r.put("DCGM_FI_DEV_ROW_REMAP_FAILURE", new Rule(Fields.REMAPPED_FAILURE, Kind.FLAG));
        for (String ratio : List.of("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_OCCUPANCY",
                "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_PIPE_FP64_ACTIVE",
                "DCGM_FI_PROF_PIPE_FP32_ACTIVE", "DCGM_FI_PROF_PIPE_FP16_ACTIVE")) {
            r.put(ratio, new Rule(Fields.GPM, Kind.RATIO));
        }
        r.put("DCGM_FI_PROF_PCIE_TX_BYTES", new Rule(Fields.GPM, Kind.RATE));
        r.put("DCGM_FI_PROF_PCIE_RX_BYTES", new Rule(Fields.GPM, Kind.RATE));
        return Map.copyOf(r);
    }

    /** One row of the counters file: the field and its Prometheus type. */
    public record Counter(String field, String type) {
    }

    /** The exporter's built-in default counters, in file order. */
    public static List<Counter> defaultCounters() {
        try (InputStream in = ExporterSeries.class.getClassLoader().getResourceAsStream(DEFAULT_COUNTERS)) {
            if (in == null) {
                throw new IllegalStateException(DEFAULT_COUNTERS + " is not on the class path (the exporter's jar)");
            }
            List<Counter> counters = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList()) {
                String row = line.strip();
                if (row.isEmpty() || row.startsWith("#")) {
                    continue;
                }
                String[] parts = row.split(",", 3);
                counters.add(new Counter(parts[0].strip().replace("\"", ""), parts[1].strip()));
            }
            return counters;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Compares one scrape.
     *
     * @param exposition the scraped text
     * @param nvml       nvml-ffm's reading (taken before the exporter started)
     * @param smi        nvidia-smi's readings around the scrape (before the exporter started, after the scrape), or none
     */
    public static List<Finding> compare(String exposition, List<Counter> counters, NodeValues nvml, List<NodeValues> smi) {
        List<Finding> findings = new ArrayList<>();
        Map<String, ExpositionParser.Family> families;
        try {
            families = ExpositionParser.parse(exposition);
        } catch (AssertionError e) {
            findings.add(new Compare(STEP, "node", "Prometheus text format 0.0.4").decided("/metrics", "unparseable",
                    "valid exposition", "strict parse", Agreement.MISMATCH, e.getMessage()));
            return findings;
        }
        String driver = nvml.system(Fields.DRIVER_VERSION).show();
        for (GpuValues gpu : nvml.gpus()) {
            List<ExpositionParser.Sample> mine = families.values().stream().flatMap(f -> f.samples().stream())
                    .filter(s -> gpu.uuid().equals(s.label("UUID"))).toList();
            Compare identity = new Compare(STEP, gpu.describe(), "nvml-ffm");
            if (mine.isEmpty()) {
                findings.add(identity.decided("series", "none", "every default series", "UUID label",
                        Agreement.MISMATCH, "no series carries UUID=\"" + gpu.uuid() + "\""));
                continue;
            }
            ExpositionParser.Sample first = mine.getFirst();
            findings.add(identity.exact("label gpu", label(first, "gpu"), Val.text(Integer.toString(gpu.index()))));
            findings.add(identity.ignoringCase("label pci_bus_id", label(first, "pci_bus_id"), Val.text(gpu.busId())));
            findings.add(identity.exact("label modelName", label(first, "modelName"), gpu.get(Fields.PRODUCT_NAME)));
            findings.add(identity.exact("label device", label(first, "device"), gpu.get(Fields.MINOR_NUMBER) instanceof Val.Num(double m)
                    ? Val.text("nvidia" + (long) m) : Val.absent()));
            findings.add(identity.exact("label DCGM_FI_DRIVER_VERSION", label(first, "DCGM_FI_DRIVER_VERSION"), Val.text(driver)));
            for (Counter counter : counters) {
                if (counter.type().equals("label")) {
                    continue;
                }
                Rule rule = RULES.get(counter.field());
                if (rule == null) {
                    findings.add(identity.decided(counter.field(), "-", "-", "no rule", Agreement.NOT_COMPARED,
                            "gpu-check has no rule for this field: add one to ExporterSeries.RULES"));
                    continue;
                }
                Optional<ExpositionParser.Sample> sample = Optional.ofNullable(families.get(counter.field()))
                        .flatMap(f -> f.samples().stream().filter(s -> gpu.uuid().equals(s.label("UUID"))).findFirst());
                findings.add(series(counter.field(), rule, sample, gpu, smi));
            }
        }
        return findings;
    }

    private static Finding series(String field, Rule rule, Optional<ExpositionParser.Sample> sample, GpuValues gpu,
                                  List<NodeValues> smi) {
        Compare nvmlRef = new Compare(STEP, gpu.describe(), "nvml-ffm");
        Val source = gpu.get(rule.key());
        boolean expected = switch (rule.kind()) {
            case XID -> true;
            case RATIO, RATE -> source instanceof Val.Text(String gpm) && gpm.equals("yes");
            case SMI_VALUE_NOT_MIG -> !gpu.migEnabled() && source instanceof Val.Num;
            case PRESENT, FLAG -> source instanceof Val.Num || source instanceof Val.Text;
            default -> source instanceof Val.Num;
        };
        if (sample.isEmpty()) {
            return nvmlRef.decided(field, "absent", expected ? source.show() : "absent", "served iff nvml-ffm reads its source",
                    expected ? Agreement.MISMATCH : Agreement.MATCH, expected ? "the scrape has no series for this GPU" : "");
        }
        Val value = Val.num(Double.parseDouble(sample.get().value()));
        if (!expected) {
            return nvmlRef.decided(field, value.show(), source.show(), "served iff nvml-ffm reads its source",
                    Agreement.MISMATCH, "the exporter serves a value where nvml-ffm reads none");
        }
        double v = ((Val.Num) value).value();
        return switch (rule.kind()) {
            case XID -> nvmlRef.decided(field, value.show(), "0", "no XID is injected on a real GPU",
                    v == 0 ? Agreement.MATCH : Agreement.MISMATCH, v == 0 ? "" : "an XID was reported during the check: look at the driver's log");
            case RATIO -> nvmlRef.decided(field, value.show(), "0..1", "a ratio", v >= 0 && v <= 1 ? Agreement.MATCH : Agreement.MISMATCH, "");
            case RATE, PRESENT -> nvmlRef.decided(field, value.show(), ">= 0", "present, not negative",
                    v >= 0 ? Agreement.MATCH : Agreement.MISMATCH, "");
            case FLAG -> nvmlRef.exact(field, value, source instanceof Val.Text(String yes) ? Val.num(yes.equals("Yes") ? 1 : 0) : source);
            case COUNTER -> nvmlRef.decided(field, value.show(), ">= " + source.show(), "a counter: at least nvml-ffm's earlier reading",
                    v >= ((Val.Num) source).value() ? Agreement.MATCH : Agreement.MISMATCH, "");
            case FRAMEBUFFER -> gpu.migEnabled()
                    ? nvmlRef.decided(field, value.show(), "-", "per GPU instance with MIG on", Agreement.NOT_COMPARED, "MIG is on: each series is one instance's")
                    : reference(field, rule, value, gpu, smi);
            case SMI_VALUE, SMI_VALUE_NOT_MIG -> reference(field, rule, value, gpu, smi);
        };
    }

    /** The value against nvidia-smi's readings when it prints the field, else against nvml-ffm's. */
    private static Finding reference(String field, Rule rule, Val value, GpuValues gpu, List<NodeValues> smi) {
        Tolerance tolerance = NodeComparison.GPU_FIELDS.getOrDefault(rule.key(), Tolerance.EXACT);
        List<Val> smiValues = smi.stream().map(n -> n.byBusId(gpu.busId()).or(() -> n.byUuid(gpu.uuid())))
                .flatMap(Optional::stream).map(g -> g.get(rule.key())).filter(Val.Num.class::isInstance).toList();
        if (!smiValues.isEmpty()) {
            return new Compare(STEP, gpu.describe(), "nvidia-smi").within(field, value, smiValues, tolerance);
        }
        return new Compare(STEP, gpu.describe(), "nvml-ffm").within(field, value, gpu.get(rule.key()), tolerance);
    }

    private static Val label(ExpositionParser.Sample sample, String name) {
        String value = sample.label(name);
        return value == null ? Val.absent() : Val.text(value);
    }
}
