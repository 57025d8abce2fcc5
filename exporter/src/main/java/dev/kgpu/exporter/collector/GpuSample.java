package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.nvml.Brand;
import dev.kgpu.nvml.GpmMetrics;
import dev.kgpu.nvml.GpuTelemetry;
import dev.kgpu.nvml.InforomObject;
import dev.kgpu.nvml.NvLinkErrorTotals;
import dev.kgpu.nvml.NvLinkTraffic;
import dev.kgpu.nvml.P2pStatus;
import dev.kgpu.nvml.PcieThroughput;
import dev.kgpu.nvml.PerfPolicy;
import dev.kgpu.nvml.VgpuLicenseState;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What NVML said about one GPU in one collection: plain values only, so collectors never touch NVML.
 * A value NVML does not support on this GPU, or that no collector asked for, is empty.
 *
 * @param gpu           the GPU as an entity (index, UUID, bus id, model)
 * @param brand         NVML's brand
 * @param serial        board serial number
 * @param vbiosVersion  VBIOS version
 * @param inforomImage  InfoROM image version
 * @param telemetry     the frequently sampled values; empty when the read failed
 * @param gpmSupported  whether the GPU has GPM (Hopper and later)
 * @param gpm           GPM metrics over the last interval (empty on the first collection and without GPM)
 * @param ecc           ECC totals
 * @param retiredSbe    pages retired for multiple single-bit errors
 * @param retiredDbe    pages retired for a double-bit error
 * @param retiredPending whether retired pages wait for a reboot
 * @param violationsNs  clock-violation time per policy, in nanoseconds
 * @param nvLinkErrors  NVLink error totals
 * @param vgpuLicense   vGPU guest licence state
 * @param gpuInstances  GPU instances, non-empty when MIG is on
 * @param inforomVersions InfoROM object versions the board has
 * @param pcieThroughput PCIe traffic over NVML's last sample, KB/s
 * @param nvLinkTraffic the data each NVLink carried so far (KiB counters), per link
 * @param nvLinkP2p     NVLink peer-to-peer status towards every other GPU, by that GPU's index
 */
public record GpuSample(
        Entity gpu,
        Brand brand,
        Optional<String> serial,
        Optional<String> vbiosVersion,
        Optional<String> inforomImage,
        Optional<GpuTelemetry> telemetry,
        boolean gpmSupported,
        Optional<GpmMetrics> gpm,
        Optional<EccTotals> ecc,
        OptionalLong retiredSbe,
        OptionalLong retiredDbe,
        Optional<Boolean> retiredPending,
        Map<PerfPolicy, Long> violationsNs,
        Optional<NvLinkErrorTotals> nvLinkErrors,
        Optional<VgpuLicenseState> vgpuLicense,
        List<GpuInstanceSample> gpuInstances,
        Map<InforomObject, String> inforomVersions,
        Optional<PcieThroughput> pcieThroughput,
        List<NvLinkTraffic> nvLinkTraffic,
        Map<Integer, P2pStatus> nvLinkP2p) {

    public GpuSample {
        violationsNs = Map.copyOf(violationsNs);
        gpuInstances = List.copyOf(gpuInstances);
        inforomVersions = Map.copyOf(inforomVersions);
        nvLinkTraffic = List.copyOf(nvLinkTraffic);
        nvLinkP2p = Map.copyOf(nvLinkP2p);
    }

    /** A sample without the reads only some counters files ask for (InfoROM objects, PCIe throughput, links, P2P). */
    public GpuSample(Entity gpu, Brand brand, Optional<String> serial, Optional<String> vbiosVersion,
                     Optional<String> inforomImage, Optional<GpuTelemetry> telemetry, boolean gpmSupported,
                     Optional<GpmMetrics> gpm, Optional<EccTotals> ecc, OptionalLong retiredSbe, OptionalLong retiredDbe,
                     Optional<Boolean> retiredPending, Map<PerfPolicy, Long> violationsNs,
                     Optional<NvLinkErrorTotals> nvLinkErrors, Optional<VgpuLicenseState> vgpuLicense,
                     List<GpuInstanceSample> gpuInstances) {
        this(gpu, brand, serial, vbiosVersion, inforomImage, telemetry, gpmSupported, gpm, ecc, retiredSbe, retiredDbe,
                retiredPending, violationsNs, nvLinkErrors, vgpuLicense, gpuInstances, Map.of(), Optional.empty(),
                List.of(), Map.of());
    }

    /**
     * The entities this GPU's series are about: its GPU instances when MIG is on (with at least one
     * instance), else the GPU.
     */
    public List<Entity> entities() {
        if (gpuInstances.isEmpty()) {
            return List.of(gpu);
        }
        return gpuInstances.stream().map(this::entityOf).toList();
    }

    /** One of this GPU's instances as an entity. */
    public Entity entityOf(GpuInstanceSample instance) {
        return gpu.instance(instance.id(), instance.profile());
    }

    /**
     * Hands each of {@link #entities()} to {@code action} with its value: {@code ofInstance} of each GPU
     * instance when MIG is on, else {@code ofGpu}.
     */
    public <T> void forEachEntity(Function<GpuInstanceSample, Optional<T>> ofInstance, Supplier<Optional<T>> ofGpu,
                                  BiConsumer<Entity, Optional<T>> action) {
        if (gpuInstances.isEmpty()) {
            action.accept(gpu, ofGpu.get());
            return;
        }
        for (GpuInstanceSample instance : gpuInstances) {
            action.accept(entityOf(instance), ofInstance.apply(instance));
        }
    }

    /**
     * ECC error totals (each empty where ECC is off or unsupported).
     */
    public record EccTotals(OptionalLong sbeVolatile, OptionalLong dbeVolatile, OptionalLong sbeAggregate,
                            OptionalLong dbeAggregate) {
    }
}
