package dev.kgpu.gpucheck.node;

import java.util.Locale;

/**
 * The keys of {@link NodeValues}: nvidia-smi's {@code -q -x} element paths below {@code <gpu>} (power draw
 * is one key whichever element a driver writes it to), plus {@code kgpu.*} values nvidia-smi does not
 * print. Both sources are read into these keys, so comparing them is comparing like with like.
 */
public final class Fields {

    // node-wide
    public static final String DRIVER_VERSION = "driver_version";
    public static final String CUDA_VERSION = "cuda_version";
    public static final String ATTACHED_GPUS = "attached_gpus";

    // identity
    public static final String UUID = "uuid";
    public static final String PRODUCT_NAME = "product_name";
    public static final String PCI_BUS_ID = "pci.pci_bus_id";
    public static final String MINOR_NUMBER = "minor_number";
    /** From {@code nvidia-smi --query-gpu=compute_cap}: {@code -q -x} does not print it. */
    public static final String COMPUTE_CAP = "compute_cap";
    public static final String MIG_CURRENT = "mig_mode.current_mig";
    public static final String MIG_PENDING = "mig_mode.pending_mig";
    public static final String ECC_CURRENT = "ecc_mode.current_ecc";

    // memory, MiB
    public static final String FB_TOTAL = "fb_memory_usage.total";
    public static final String FB_RESERVED = "fb_memory_usage.reserved";
    public static final String FB_USED = "fb_memory_usage.used";
    public static final String FB_FREE = "fb_memory_usage.free";

    // moving values
    public static final String GPU_TEMP = "temperature.gpu_temp";
    public static final String MEMORY_TEMP = "temperature.memory_temp";
    /** W: nvidia-smi's {@code gpu_power_readings/power_draw} (or {@code average_power_draw}, {@code instant_power_draw}, {@code power_readings/power_draw}). */
    public static final String POWER_DRAW = "power_draw";
    public static final String SM_CLOCK = "clocks.sm_clock";
    public static final String MEM_CLOCK = "clocks.mem_clock";
    public static final String GPU_UTIL = "utilization.gpu_util";
    public static final String MEMORY_UTIL = "utilization.memory_util";
    public static final String ENCODER_UTIL = "utilization.encoder_util";
    public static final String DECODER_UTIL = "utilization.decoder_util";

    // counters
    public static final String REPLAY_COUNTER = "pci.replay_counter";
    public static final String REMAPPED_CORRECTABLE = "remapped_rows.remapped_row_corr";
    public static final String REMAPPED_UNCORRECTABLE = "remapped_rows.remapped_row_unc";
    public static final String REMAPPED_PENDING = "remapped_rows.remapped_row_pending";
    public static final String REMAPPED_FAILURE = "remapped_rows.remapped_row_failure";

    // read by nvml-ffm only (nvidia-smi -q does not print them)
    public static final String ENERGY_MJ = "kgpu.total_energy_consumption_mj";
    public static final String NVLINK_DATA_KIB = "kgpu.nvlink_data_kib";
    public static final String VGPU_LICENSE = "kgpu.vgpu_license";
    public static final String GPM = "kgpu.gpm_supported";

    private Fields() {
    }

    /** {@code 0000:1b:00.0} and {@code 00000000:1B:00.0} both become {@code 00000000:1B:00.0}. */
    public static String normaliseBusId(String busId) {
        String upper = busId.strip().toUpperCase(Locale.ROOT);
        int colon = upper.indexOf(':');
        if (colon > 0 && colon < 8 && upper.indexOf(':', colon + 1) > 0) {
            upper = "0".repeat(8 - colon) + upper;
        }
        return upper;
    }
}
