package dev.kgpu.nvml;

import java.time.Duration;

/**
 * GPU performance metrics over one interval, in DCGM's units so they can stand in for the
 * {@code DCGM_FI_PROF_*} fields: activities are ratios in [0, 1] (NVML reports percent), PCIe traffic is
 * bytes per second (NVML reports MiB/s). A metric NVML could not compute for the interval (its own
 * {@code nvmlReturn} was not success) is {@link Double#NaN}.
 *
 * @param interval              time between the two samples
 * @param graphicsEngineActive  {@code NVML_GPM_METRIC_GRAPHICS_UTIL} / 100 ({@code DCGM_FI_PROF_GR_ENGINE_ACTIVE})
 * @param smActive              {@code NVML_GPM_METRIC_SM_UTIL} / 100 ({@code DCGM_FI_PROF_SM_ACTIVE})
 * @param smOccupancy           {@code NVML_GPM_METRIC_SM_OCCUPANCY} / 100 ({@code DCGM_FI_PROF_SM_OCCUPANCY})
 * @param tensorActive          {@code NVML_GPM_METRIC_ANY_TENSOR_UTIL} / 100 ({@code DCGM_FI_PROF_PIPE_TENSOR_ACTIVE})
 * @param dramActive            {@code NVML_GPM_METRIC_DRAM_BW_UTIL} / 100 ({@code DCGM_FI_PROF_DRAM_ACTIVE})
 * @param fp64Active            {@code NVML_GPM_METRIC_FP64_UTIL} / 100
 * @param fp32Active            {@code NVML_GPM_METRIC_FP32_UTIL} / 100
 * @param fp16Active            {@code NVML_GPM_METRIC_FP16_UTIL} / 100
 * @param pcieTxBytesPerSecond  {@code NVML_GPM_METRIC_PCIE_TX_PER_SEC} × 2^20
 * @param pcieRxBytesPerSecond  {@code NVML_GPM_METRIC_PCIE_RX_PER_SEC} × 2^20
 */
public record GpmMetrics(
        Duration interval,
        double graphicsEngineActive,
        double smActive,
        double smOccupancy,
        double tensorActive,
        double dramActive,
        double fp64Active,
        double fp32Active,
        double fp16Active,
        double pcieTxBytesPerSecond,
        double pcieRxBytesPerSecond) {
}
