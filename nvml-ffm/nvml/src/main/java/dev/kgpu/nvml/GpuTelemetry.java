package dev.kgpu.nvml;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One read of a GPU's frequently sampled values, as the exporter's collection interval takes it.
 * A value the GPU does not support is empty.
 *
 * @param readAt                    when the read finished
 * @param gpuTemperatureCelsius     {@code nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)}
 * @param memoryTemperatureCelsius  field {@code NVML_FI_DEV_MEMORY_TEMP} (HBM GPUs)
 * @param powerMilliwatts           {@code nvmlDeviceGetPowerUsage}
 * @param totalEnergyMillijoules    {@code nvmlDeviceGetTotalEnergyConsumption}, since the driver loaded
 * @param smClockMhz                {@code nvmlDeviceGetClockInfo(NVML_CLOCK_SM)}
 * @param memoryClockMhz            {@code nvmlDeviceGetClockInfo(NVML_CLOCK_MEM)}
 * @param utilization               {@code nvmlDeviceGetUtilizationRates}
 * @param encoderUtilizationPercent {@code nvmlDeviceGetEncoderUtilization}
 * @param decoderUtilizationPercent {@code nvmlDeviceGetDecoderUtilization}
 * @param pcieReplayCount           {@code nvmlDeviceGetPcieReplayCounter}
 * @param memory                    framebuffer memory
 * @param nvLinkDataKiB             NVLink data payload counters summed over links and directions
 *                                  ({@code NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX + _RX}, KiB)
 * @param remappedRows              {@code nvmlDeviceGetRemappedRows}
 * @param clockEventReasons         why clocks are held back now ({@code nvmlDeviceGetCurrentClocksEventReasons})
 */
public record GpuTelemetry(
        Instant readAt,
        OptionalInt gpuTemperatureCelsius,
        OptionalInt memoryTemperatureCelsius,
        OptionalLong powerMilliwatts,
        OptionalLong totalEnergyMillijoules,
        OptionalInt smClockMhz,
        OptionalInt memoryClockMhz,
        Optional<Utilization> utilization,
        OptionalInt encoderUtilizationPercent,
        OptionalInt decoderUtilizationPercent,
        OptionalLong pcieReplayCount,
        Optional<MemoryInfo> memory,
        OptionalLong nvLinkDataKiB,
        Optional<RemappedRows> remappedRows,
        Optional<Set<ClockEventReason>> clockEventReasons) {
}
