package dev.kgpu.gpucheck.smi;

import dev.kgpu.nvml.mock.MockProfile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A stand-in for {@code nvidia-smi} on a machine without a GPU, built from the mock NVML's profile (the same
 * {@code MOCK_NVML_PROFILE} and {@code MOCK_NVML_PROFILE_DIR} the mock reads), so the check's mock run
 * compares nvml-ffm's reading of the mock with what the profile says the node is. It answers the two
 * questions the check asks, in nvidia-smi's formats: {@code -q -x} and
 * {@code --query-gpu=pci.bus_id,compute_cap --format=csv,noheader}. Walking values are printed at the
 * profile's {@code value}: the mock run freezes the walk ({@code MOCK_NVML_WALK=0}).
 */
public final class FakeNvidiaSmi {

    private static final double MIB = 1024.0 * 1024.0;

    private FakeNvidiaSmi() {
    }

    public static void main(String[] args) {
        try {
            MockProfile profile = load(System.getenv());
            List<String> list = List.of(args);
            if (list.equals(List.of("-q", "-x"))) {
                System.out.print(xml(profile));
            } else if (list.contains("--query-gpu=pci.bus_id,compute_cap") && list.contains("--format=csv,noheader")) {
                System.out.print(computeCaps(profile));
            } else {
                System.err.println("fake nvidia-smi (kgpu gpu-check): only '-q -x' and "
                        + "'--query-gpu=pci.bus_id,compute_cap --format=csv,noheader' are answered, not " + list);
                System.exit(2);
            }
        } catch (RuntimeException e) {
            System.err.println("fake nvidia-smi (kgpu gpu-check): " + e.getMessage());
            System.exit(1);
        }
    }

    /** The profile the mock loads with this environment. */
    public static MockProfile load(Map<String, String> env) {
        String named = Optional.ofNullable(env.get("MOCK_NVML_PROFILE")).filter(s -> !s.isBlank()).orElse("rtx3060");
        Path file = named.contains("/") || named.endsWith(".json") ? Path.of(named)
                : Path.of(Optional.ofNullable(env.get("MOCK_NVML_PROFILE_DIR")).orElseThrow(() ->
                new IllegalArgumentException("MOCK_NVML_PROFILE_DIR was '' but it must name the mock's profile folder"
                        + " when MOCK_NVML_PROFILE is a name ('" + named + "')"))).resolve(named + ".json");
        try {
            return MockProfile.parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the mock profile " + file + ": " + e.getMessage(), e);
        }
    }

    public static String computeCaps(MockProfile profile) {
        StringBuilder out = new StringBuilder();
        for (Map<String, Object> gpu : profile.gpus()) {
            out.append(MockProfile.string(gpu, "pci.busId")).append(", ")
                    .append(MockProfile.number(gpu, "computeCapability.major").intValue()).append('.')
                    .append(MockProfile.number(gpu, "computeCapability.minor").intValue()).append('\n');
        }
        return out.toString();
    }

    /** {@code nvidia-smi -q -x} for the profile's node, with the elements the check reads. */
    public static String xml(MockProfile profile) {
        StringBuilder x = new StringBuilder();
        x.append("<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n<nvidia_smi_log>\n");
        x.append("\t<timestamp>Thu Jan  1 00:00:00 2026</timestamp>\n");
        x.append("\t<driver_version>").append(profile.system("driverVersion")).append("</driver_version>\n");
        int cuda = ((BigDecimal) profile.system("cudaDriverVersion")).intValue();
        x.append("\t<cuda_version>").append(cuda / 1000).append('.').append((cuda % 1000) / 10).append("</cuda_version>\n");
        x.append("\t<attached_gpus>").append(profile.gpus().size()).append("</attached_gpus>\n");
        for (Map<String, Object> g : profile.gpus()) {
            String busId = MockProfile.string(g, "pci.busId");
            x.append("\t<gpu id=\"").append(busId).append("\">\n");
            x.append("\t\t<product_name>").append(escape(MockProfile.string(g, "name"))).append("</product_name>\n");
            String migMode = MockProfile.value(g, "mig.mode").map(Object::toString).orElse(null);
            String migPending = MockProfile.value(g, "mig.pendingMode").map(Object::toString).orElse(migMode);
            x.append("\t\t<mig_mode>\n\t\t\t<current_mig>").append(mode(migMode)).append("</current_mig>\n\t\t\t<pending_mig>")
                    .append(mode(migPending)).append("</pending_mig>\n\t\t</mig_mode>\n");
            x.append("\t\t<uuid>").append(MockProfile.string(g, "uuid")).append("</uuid>\n");
            x.append("\t\t<minor_number>").append(MockProfile.number(g, "minorNumber").intValue()).append("</minor_number>\n");
            x.append("\t\t<pci>\n\t\t\t<pci_bus_id>").append(busId).append("</pci_bus_id>\n\t\t\t<replay_counter>")
                    .append(number(g, "pcieReplayCount", "")).append("</replay_counter>\n\t\t</pci>\n");
            long total = MockProfile.number(g, "memory.totalBytes").longValue();
            long reserved = MockProfile.value(g, "memory.reservedBytes").isPresent() ? MockProfile.number(g, "memory.reservedBytes").longValue() : 0;
            long used = MockProfile.number(g, "memory.usedBytes").longValue();
            x.append("\t\t<fb_memory_usage>\n");
            x.append("\t\t\t<total>").append(mib(total)).append(" MiB</total>\n");
            x.append("\t\t\t<reserved>").append(mib(reserved)).append(" MiB</reserved>\n");
            x.append("\t\t\t<used>").append(mib(used)).append(" MiB</used>\n");
            x.append("\t\t\t<free>").append(mib(total - reserved - used)).append(" MiB</free>\n");
            x.append("\t\t</fb_memory_usage>\n");
            // NVML has no utilisation of a GPU with MIG on, and nvidia-smi prints N/A for it
            boolean migOn = "enabled".equalsIgnoreCase(migMode);
            x.append("\t\t<utilization>\n");
            x.append("\t\t\t<gpu_util>").append(migOn ? "N/A" : number(g, "utilization.gpuPercent", " %")).append("</gpu_util>\n");
            x.append("\t\t\t<memory_util>").append(migOn ? "N/A" : number(g, "utilization.memoryPercent", " %")).append("</memory_util>\n");
            x.append("\t\t\t<encoder_util>").append(migOn ? "N/A" : number(g, "utilization.encoderPercent", " %")).append("</encoder_util>\n");
            x.append("\t\t\t<decoder_util>").append(migOn ? "N/A" : number(g, "utilization.decoderPercent", " %")).append("</decoder_util>\n");
            x.append("\t\t</utilization>\n");
            String ecc = MockProfile.value(g, "ecc").isPresent() ? "Enabled" : "N/A";
            x.append("\t\t<ecc_mode>\n\t\t\t<current_ecc>").append(ecc).append("</current_ecc>\n\t\t\t<pending_ecc>").append(ecc)
                    .append("</pending_ecc>\n\t\t</ecc_mode>\n");
            if (MockProfile.value(g, "remappedRows").isPresent()) {
                x.append("\t\t<remapped_rows>\n");
                x.append("\t\t\t<remapped_row_corr>").append(number(g, "remappedRows.correctable", "")).append("</remapped_row_corr>\n");
                x.append("\t\t\t<remapped_row_unc>").append(number(g, "remappedRows.uncorrectable", "")).append("</remapped_row_unc>\n");
                x.append("\t\t\t<remapped_row_pending>").append(yesNo(g, "remappedRows.pending")).append("</remapped_row_pending>\n");
                x.append("\t\t\t<remapped_row_failure>").append(yesNo(g, "remappedRows.failure")).append("</remapped_row_failure>\n");
                x.append("\t\t</remapped_rows>\n");
            } else {
                x.append("\t\t<remapped_rows>N/A</remapped_rows>\n");
            }
            x.append("\t\t<temperature>\n");
            x.append("\t\t\t<gpu_temp>").append(number(g, "temperature.gpuC", " C")).append("</gpu_temp>\n");
            x.append("\t\t\t<memory_temp>").append(number(g, "temperature.memoryC", " C")).append("</memory_temp>\n");
            x.append("\t\t</temperature>\n");
            x.append("\t\t<gpu_power_readings>\n\t\t\t<power_state>P0</power_state>\n\t\t\t<power_draw>");
            x.append(MockProfile.value(g, "power.usageMw").isPresent()
                    ? String.format(Locale.ROOT, "%.2f W", MockProfile.number(g, "power.usageMw").doubleValue() / 1000.0) : "N/A");
            x.append("</power_draw>\n\t\t</gpu_power_readings>\n");
            x.append("\t\t<clocks>\n");
            x.append("\t\t\t<graphics_clock>").append(number(g, "clocksMhz.graphics", " MHz")).append("</graphics_clock>\n");
            x.append("\t\t\t<sm_clock>").append(number(g, "clocksMhz.sm", " MHz")).append("</sm_clock>\n");
            x.append("\t\t\t<mem_clock>").append(number(g, "clocksMhz.memory", " MHz")).append("</mem_clock>\n");
            x.append("\t\t</clocks>\n");
            x.append("\t</gpu>\n");
        }
        x.append("</nvidia_smi_log>\n");
        return x.toString();
    }

    private static String mode(String profileMode) {
        if (profileMode == null) {
            return "N/A";
        }
        return profileMode.equalsIgnoreCase("enabled") ? "Enabled" : "Disabled";
    }

    private static String number(Map<String, Object> gpu, String path, String unit) {
        return MockProfile.value(gpu, path).isPresent() ? MockProfile.number(gpu, path).toPlainString() + unit : "N/A";
    }

    private static String yesNo(Map<String, Object> gpu, String path) {
        return MockProfile.value(gpu, path).map(v -> Boolean.TRUE.equals(v) ? "Yes" : "No").orElse("N/A");
    }

    private static long mib(long bytes) {
        return (long) Math.floor(bytes / MIB);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
