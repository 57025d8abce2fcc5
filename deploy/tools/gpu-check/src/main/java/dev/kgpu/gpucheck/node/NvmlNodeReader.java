package dev.kgpu.gpucheck.node;

import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.GpuTelemetry;
import dev.kgpu.nvml.MemoryInfo;
import dev.kgpu.nvml.MigMode;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Reads a node through nvml-ffm's public API into {@link NodeValues}, in nvidia-smi's units. A value NVML
 * does not support is {@link Val.NotAvailable}; a read that fails is too, with NVML's error, so one broken
 * call shows up as a mismatch instead of ending the check.
 */
public final class NvmlNodeReader {

    private static final double MIB = 1024.0 * 1024.0;

    private NvmlNodeReader() {
    }

    /** Every node-wide value and every GPU. */
    public static NodeValues read(Nvml nvml, String library) {
        Map<String, Val> system = new LinkedHashMap<>();
        system.put(Fields.DRIVER_VERSION, read(() -> Val.text(nvml.driverVersion())));
        system.put(Fields.CUDA_VERSION, read(() -> Val.text(nvml.cudaDriverVersion().toString())));
        List<GpuDevice> devices = nvml.devices();
        system.put(Fields.ATTACHED_GPUS, Val.num(devices.size()));
        List<NodeValues.GpuValues> gpus = devices.stream().map(NvmlNodeReader::gpu).toList();
        return new NodeValues("nvml-ffm (" + library + ")", system, gpus);
    }

    private static NodeValues.GpuValues gpu(GpuDevice gpu) {
        Map<String, Val> f = new LinkedHashMap<>();
        f.put(Fields.UUID, Val.text(gpu.uuid()));
        f.put(Fields.PRODUCT_NAME, read(() -> Val.text(gpu.name())));
        f.put(Fields.PCI_BUS_ID, read(() -> Val.text(gpu.pci().busId())));
        f.put(Fields.MINOR_NUMBER, read(() -> Val.num(gpu.minorNumber())));
        f.put(Fields.COMPUTE_CAP, read(() -> Val.text(gpu.computeCapability().toString())));
        Attempt<Optional<MigMode>> mig = attempt(gpu::migMode);
        f.put(Fields.MIG_CURRENT, mig.or(m -> m.map(mode -> Val.text(enabled(mode.currentEnabled())))
                .orElse(Val.notAvailable("NOT_SUPPORTED"))));
        f.put(Fields.MIG_PENDING, mig.or(m -> m.map(mode -> Val.text(enabled(mode.pendingEnabled())))
                .orElse(Val.notAvailable("NOT_SUPPORTED"))));
        f.put(Fields.ECC_CURRENT, read(() -> gpu.eccMode().map(mode -> Val.text(enabled(mode.current())))
                .orElse(Val.notAvailable("NOT_SUPPORTED"))));
        Attempt<MemoryInfo> memory = attempt(gpu::memory);
        if (memory.error() == null) {
            memory(f, memory.value());
        } else {
            f.put(Fields.FB_TOTAL, memory.failure());
        }
        Attempt<GpuTelemetry> telemetry = attempt(gpu::telemetry);
        if (telemetry.error() == null) {
            GpuTelemetry t = telemetry.value();
            f.put(Fields.GPU_TEMP, of(t.gpuTemperatureCelsius()));
            f.put(Fields.MEMORY_TEMP, of(t.memoryTemperatureCelsius()));
            f.put(Fields.POWER_DRAW, t.powerMilliwatts().isPresent()
                    ? Val.num(t.powerMilliwatts().getAsLong() / 1000.0) : Val.notAvailable("NOT_SUPPORTED"));
            f.put(Fields.SM_CLOCK, of(t.smClockMhz()));
            f.put(Fields.MEM_CLOCK, of(t.memoryClockMhz()));
            f.put(Fields.GPU_UTIL, t.utilization().map(u -> Val.num(u.gpuPercent())).orElse(Val.notAvailable("NOT_SUPPORTED")));
            f.put(Fields.MEMORY_UTIL, t.utilization().map(u -> Val.num(u.memoryPercent())).orElse(Val.notAvailable("NOT_SUPPORTED")));
            f.put(Fields.ENCODER_UTIL, of(t.encoderUtilizationPercent()));
            f.put(Fields.DECODER_UTIL, of(t.decoderUtilizationPercent()));
            f.put(Fields.REPLAY_COUNTER, of(t.pcieReplayCount()));
            f.put(Fields.ENERGY_MJ, of(t.totalEnergyMillijoules()));
            f.put(Fields.NVLINK_DATA_KIB, of(t.nvLinkDataKiB()));
            if (t.remappedRows().isPresent()) {
                var rows = t.remappedRows().get();
                f.put(Fields.REMAPPED_CORRECTABLE, Val.num(rows.correctable()));
                f.put(Fields.REMAPPED_UNCORRECTABLE, Val.num(rows.uncorrectable()));
                f.put(Fields.REMAPPED_PENDING, Val.text(rows.pending() ? "Yes" : "No"));
                f.put(Fields.REMAPPED_FAILURE, Val.text(rows.failed() ? "Yes" : "No"));
            } else {
                for (String key : List.of(Fields.REMAPPED_CORRECTABLE, Fields.REMAPPED_UNCORRECTABLE,
                        Fields.REMAPPED_PENDING, Fields.REMAPPED_FAILURE)) {
                    f.put(key, Val.notAvailable("NOT_SUPPORTED"));
                }
            }
        } else {
            for (String key : List.of(Fields.GPU_TEMP, Fields.POWER_DRAW, Fields.SM_CLOCK, Fields.MEM_CLOCK)) {
                f.put(key, telemetry.failure());
            }
        }
        f.put(Fields.VGPU_LICENSE, read(() -> gpu.vgpuLicenseState().map(s -> Val.text(s.toString()))
                .orElse(Val.notAvailable("not a vGPU guest"))));
        f.put(Fields.GPM, read(() -> Val.text(gpu.gpmSupported() ? "yes" : "no")));
        return new NodeValues.GpuValues(gpu.index(), gpu.uuid(), gpu.pci().busId(), f);
    }

    private static void memory(Map<String, Val> f, MemoryInfo memory) {
        f.put(Fields.FB_TOTAL, Val.num(Math.floor(memory.totalBytes() / MIB)));
        f.put(Fields.FB_USED, Val.num(Math.floor(memory.usedBytes() / MIB)));
        f.put(Fields.FB_FREE, Val.num(Math.floor(memory.freeBytes() / MIB)));
        f.put(Fields.FB_RESERVED, memory.reservedBytes().isPresent()
                ? Val.num(Math.floor(memory.reservedBytes().getAsLong() / MIB))
                : Val.notAvailable("no v2 memory query"));
    }

    private static String enabled(boolean on) {
        return on ? "Enabled" : "Disabled";
    }

    private static Val of(OptionalInt value) {
        return value.isPresent() ? Val.num(value.getAsInt()) : Val.notAvailable("NOT_SUPPORTED");
    }

    private static Val of(OptionalLong value) {
        return value.isPresent() ? Val.num(value.getAsLong()) : Val.notAvailable("NOT_SUPPORTED");
    }

    private static Val read(Supplier<Val> reader) {
        try {
            return reader.get();
        } catch (NvmlException e) {
            return Val.notAvailable("failed: " + e.getMessage());
        }
    }

    /** One read's value, or the NVML error that stopped it. */
    private record Attempt<T>(T value, String error) {

        Val failure() {
            return Val.notAvailable("failed: " + error);
        }

        Val or(java.util.function.Function<T, Val> convert) {
            return error == null ? convert.apply(value) : failure();
        }
    }

    private static <T> Attempt<T> attempt(Supplier<T> reader) {
        try {
            return new Attempt<>(reader.get(), null);
        } catch (NvmlException e) {
            return new Attempt<>(null, e.getMessage());
        }
    }
}
