package dev.kgpu.exporter.counters;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The DCGM fields kgpu can read from NVML, under dcgm-exporter's 2.x to 4.8 names, and how a counters row's
 * name maps to one of them: a served name is itself; a dcgm-exporter 1.x name ({@code dcgm_sm_clock}) is
 * the served field of the same DCGM id, as go-dcgm's {@code GetFieldID} resolves both to field 100.
 */
public final class ServedFields {

    public static final Set<String> METRICS = metrics();

    public static final Set<String> LABELS = Set.of(
            "DCGM_FI_DRIVER_VERSION", "DCGM_FI_NVML_VERSION", "DCGM_FI_DEV_BRAND", "DCGM_FI_DEV_SERIAL",
            "DCGM_FI_DEV_VBIOS_VERSION", "DCGM_FI_DEV_INFOROM_IMAGE_VER", "DCGM_FI_DEV_OEM_INFOROM_VER",
            "DCGM_FI_DEV_ECC_INFOROM_VER", "DCGM_FI_DEV_POWER_INFOROM_VER", "DCGM_FI_DEV_NAME", "DCGM_FI_DEV_UUID",
            "DCGM_FI_DEV_PCI_BUSID");

    private static Set<String> metrics() {
        Set<String> names = new LinkedHashSet<>(Set.of(
                "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK",
                "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_GPU_TEMP",
                "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                "DCGM_FI_DEV_PCIE_TX_THROUGHPUT", "DCGM_FI_DEV_PCIE_RX_THROUGHPUT", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_ENC_UTIL", "DCGM_FI_DEV_DEC_UTIL",
                "DCGM_FI_DEV_XID_ERRORS",
                "DCGM_FI_DEV_POWER_VIOLATION", "DCGM_FI_DEV_THERMAL_VIOLATION", "DCGM_FI_DEV_SYNC_BOOST_VIOLATION",
                "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", "DCGM_FI_DEV_LOW_UTIL_VIOLATION",
                "DCGM_FI_DEV_RELIABILITY_VIOLATION",
                "DCGM_FI_DEV_FB_TOTAL", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_RESERVED",
                "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
                "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
                "DCGM_FI_DEV_RETIRED_SBE", "DCGM_FI_DEV_RETIRED_DBE", "DCGM_FI_DEV_RETIRED_PENDING",
                "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
                "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
                "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
                "DCGM_FI_DEV_VGPU_LICENSE_STATUS",
                "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
                "DCGM_FI_DEV_ROW_REMAP_FAILURE",
                "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_OCCUPANCY",
                "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_PIPE_FP64_ACTIVE",
                "DCGM_FI_PROF_PIPE_FP32_ACTIVE", "DCGM_FI_PROF_PIPE_FP16_ACTIVE", "DCGM_FI_PROF_PCIE_TX_BYTES",
                "DCGM_FI_PROF_PCIE_RX_BYTES"));
        IntStream.range(0, NVLINK_LINKS).forEach(link -> names.add(NVLINK_LINK_BANDWIDTH + link));
        return Set.copyOf(names);
    }

    /** {@code DCGM_FI_DEV_NVLINK_BANDWIDTH_L<n>}, one field per link. */
    public static final String NVLINK_LINK_BANDWIDTH = "DCGM_FI_DEV_NVLINK_BANDWIDTH_L";
    /** NVML_NVLINK_MAX_LINKS: DCGM names the per-link fields L0 to L17. */
    public static final int NVLINK_LINKS = 18;

    private static final Map<Integer, String> METRIC_BY_ID = byId(METRICS);
    private static final Map<Integer, String> LABEL_BY_ID = byId(LABELS);

    private ServedFields() {
    }

    /**
     * The served field a counters row named {@code name} with {@code type} reads, or empty when kgpu serves
     * no such field: {@code name} itself when served, else for a dcgm-exporter 1.x name (lower case
     * {@code dcgm_...}) the served field with the same DCGM id.
     */
    public static Optional<String> fieldOf(String name, MetricType type) {
        Set<String> served = type == MetricType.LABEL ? LABELS : METRICS;
        if (served.contains(name)) {
            return Optional.of(name);
        }
        if (!name.startsWith("dcgm_")) {
            return Optional.empty();
        }
        var id = DcgmFieldCatalog.get().id(name);
        if (id.isEmpty()) {
            return Optional.empty();
        }
        return Optional.ofNullable((type == MetricType.LABEL ? LABEL_BY_ID : METRIC_BY_ID).get(id.getAsInt()));
    }

    private static Map<Integer, String> byId(Set<String> names) {
        Map<Integer, String> ids = new HashMap<>();
        for (String name : names) {
            int id = DcgmFieldCatalog.get().id(name).orElseThrow(
                    () -> new IllegalStateException(name + " is served but is no DCGM field"));
            String other = ids.put(id, name);
            if (other != null) {
                throw new IllegalStateException(name + " and " + other + " are both served as DCGM field " + id);
            }
        }
        return Map.copyOf(ids);
    }
}
