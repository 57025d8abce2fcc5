package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.Architecture;
import dev.kgpu.nvml.Brand;
import dev.kgpu.nvml.ClockEventReason;
import dev.kgpu.nvml.ComputeCapability;
import dev.kgpu.nvml.ComputeMode;
import dev.kgpu.nvml.EccMode;
import dev.kgpu.nvml.EccCounterType;
import dev.kgpu.nvml.GpmSampler;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.GpuFabricInfo;
import dev.kgpu.nvml.GpuTelemetry;
import dev.kgpu.nvml.InforomObject;
import dev.kgpu.nvml.MemoryErrorType;
import dev.kgpu.nvml.MemoryInfo;
import dev.kgpu.nvml.MigDevice;
import dev.kgpu.nvml.MigMode;
import dev.kgpu.nvml.NvLink;
import dev.kgpu.nvml.NvLinkErrorTotals;
import dev.kgpu.nvml.NvLinkTraffic;
import dev.kgpu.nvml.P2pCapability;
import dev.kgpu.nvml.P2pStatus;
import dev.kgpu.nvml.PageRetirementCause;
import dev.kgpu.nvml.PciInfo;
import dev.kgpu.nvml.PcieThroughput;
import dev.kgpu.nvml.PerfPolicy;
import dev.kgpu.nvml.RemappedRows;
import dev.kgpu.nvml.TopologyLevel;
import dev.kgpu.nvml.Utilization;
import dev.kgpu.nvml.VgpuLicenseState;
import dev.kgpu.nvml.VirtualizationMode;
import dev.kgpu.nvml.internal.bindings.NvmlNative;
import dev.kgpu.nvml.internal.bindings.nvmlFieldValue_st;
import dev.kgpu.nvml.internal.bindings.nvmlGridLicensableFeature_st;
import dev.kgpu.nvml.internal.bindings.nvmlGridLicensableFeatures_st;
import dev.kgpu.nvml.internal.bindings.nvmlMemory_v2_st;
import dev.kgpu.nvml.internal.bindings.nvmlPciInfo_st;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A physical GPU behind an {@code nvmlDevice_t}. Identity values are read in the constructor and cached;
 * every other method reads NVML on each call.
 *
 * <p>Thread-safety: safe for concurrent use. Each read takes one scratch segment from the session's
 * {@link ScratchPool} and lays its out-parameters at fixed offsets in it, so reads allocate no native
 * memory; the few lazily learned facts (whether the v2 memory query and GPM work) are in volatile fields
 * whose races only repeat an idempotent query.
 */
final class NvmlGpu implements GpuDevice {

    private static final int NAME_BUFFER = 96;      // NVML_DEVICE_NAME_V2_BUFFER_SIZE
    private static final int UUID_BUFFER = 96;      // NVML_DEVICE_UUID_V2_BUFFER_SIZE
    private static final int SERIAL_BUFFER = 30;    // NVML_DEVICE_SERIAL_BUFFER_SIZE
    private static final int VBIOS_BUFFER = 32;     // NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE
    private static final int INFOROM_BUFFER = 16;   // NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE
    /** {@code scopeId} meaning "summed over every link" for the NVLink throughput fields. */
    private static final int ALL_LINKS = 0xFFFFFFFF;

    // Offsets of the telemetry out-parameters inside one 4 KiB scratch segment.
    private static final long T_TEMPERATURE = 0;
    private static final long T_POWER = 8;
    private static final long T_ENERGY = 16;
    private static final long T_SM_CLOCK = 24;
    private static final long T_MEM_CLOCK = 28;
    private static final long T_UTILIZATION = 32;
    private static final long T_ENCODER = 40;
    private static final long T_DECODER = 48;
    private static final long T_SAMPLING = 56;
    private static final long T_REPLAY = 64;
    private static final long T_REASONS = 72;
    private static final long T_REMAPPED = 80;
    private static final long T_REMAPPED_UNCORRECTABLE = 88;
    private static final long T_REMAPPED_PENDING = 96;
    private static final long T_REMAPPED_FAILED = 104;
    private static final long T_MEMORY = 128;      // nvmlMemory_v2_t (40 bytes) or nvmlMemory_t (24 bytes)
    private static final long T_FIELDS = 256;      // nvmlFieldValue_t[3]

    // nvmlFieldValue_t, read by offset so that no slice is made per field
    private static final long FIELD_BYTES = nvmlFieldValue_st.sizeof();
    private static final long FIELD_ID = nvmlFieldValue_st.fieldId$offset();
    private static final long FIELD_SCOPE = nvmlFieldValue_st.scopeId$offset();
    private static final long FIELD_TYPE = nvmlFieldValue_st.valueType$offset();
    private static final long FIELD_RETURN = nvmlFieldValue_st.nvmlReturn$offset();
    private static final long FIELD_VALUE = nvmlFieldValue_st.value$offset();

    private final NvmlSession session;
    private final ScratchPool scratch;
    private final MemorySegment handle;
    private final int index;
    private final String uuid;
    private final String name;
    private final Brand brand;
    private final Architecture architecture;
    private final ComputeCapability computeCapability;
    private final PciInfo pci;
    private final int minorNumber;
    private final OptionalInt numaNode;
    private final Optional<String> serial;
    private final Optional<String> vbiosVersion;
    private final Optional<String> inforomImageVersion;
    private final Map<String, NvmlMigDevice> migDevices = new ConcurrentHashMap<>();
    /** null until learned: whether {@code nvmlDeviceGetMemoryInfo_v2} answers on this GPU. */
    private volatile Boolean memoryV2;
    /** null until learned: whether GPM works on this GPU. */
    private volatile Boolean gpm;

    NvmlGpu(NvmlSession session, int index, MemorySegment handle) {
        this.session = session;
        this.scratch = session.scratch();
        this.handle = handle;
        this.index = index;
        MemorySegment s = scratch.acquire();
        try {
            NvmlReturns.check(NvmlNative.nvmlDeviceGetUUID(handle, s, UUID_BUFFER), "nvmlDeviceGetUUID");
            this.uuid = Conversions.string(s, UUID_BUFFER);
            NvmlReturns.check(NvmlNative.nvmlDeviceGetName(handle, s, NAME_BUFFER), "nvmlDeviceGetName");
            this.name = Conversions.string(s, NAME_BUFFER);
            this.brand = NvmlReturns.supported(NvmlNative.nvmlDeviceGetBrand(handle, s), "nvmlDeviceGetBrand")
                    ? Brand.fromNvml(s.get(JAVA_INT, 0)) : Brand.UNKNOWN;
            this.architecture = NvmlReturns.supported(NvmlNative.nvmlDeviceGetArchitecture(handle, s),
                    "nvmlDeviceGetArchitecture") ? Architecture.fromNvml(s.get(JAVA_INT, 0)) : Architecture.UNKNOWN;
            NvmlReturns.check(NvmlNative.nvmlDeviceGetCudaComputeCapability(handle, s, s.asSlice(4)),
                    "nvmlDeviceGetCudaComputeCapability");
            this.computeCapability = new ComputeCapability(s.get(JAVA_INT, 0), s.get(JAVA_INT, 4));
            NvmlReturns.check(NvmlNative.nvmlDeviceGetPciInfo_v3(handle, s), "nvmlDeviceGetPciInfo_v3");
            this.pci = Conversions.pciInfo(s.asSlice(0, nvmlPciInfo_st.sizeof()));
            NvmlReturns.check(NvmlNative.nvmlDeviceGetMinorNumber(handle, s), "nvmlDeviceGetMinorNumber");
            this.minorNumber = s.get(JAVA_INT, 0);
            this.numaNode = NvmlReturns.supported(NvmlNative.nvmlDeviceGetNumaNodeId(handle, s),
                    "nvmlDeviceGetNumaNodeId") && s.get(JAVA_INT, 0) >= 0
                    ? OptionalInt.of(s.get(JAVA_INT, 0)) : sysfsNumaNode(pci);
            this.serial = NvmlReturns.supported(NvmlNative.nvmlDeviceGetSerial(handle, s, SERIAL_BUFFER),
                    "nvmlDeviceGetSerial") ? Optional.of(Conversions.string(s, SERIAL_BUFFER)) : Optional.empty();
            this.vbiosVersion = NvmlReturns.supported(NvmlNative.nvmlDeviceGetVbiosVersion(handle, s, VBIOS_BUFFER),
                    "nvmlDeviceGetVbiosVersion") ? Optional.of(Conversions.string(s, VBIOS_BUFFER)) : Optional.empty();
            this.inforomImageVersion = NvmlReturns.supported(
                    NvmlNative.nvmlDeviceGetInforomImageVersion(handle, s, INFOROM_BUFFER),
                    "nvmlDeviceGetInforomImageVersion")
                    ? Optional.of(Conversions.string(s, INFOROM_BUFFER)) : Optional.empty();
        } finally {
            scratch.release(s);
        }
    }

    /**
     * NVML answers {@code nvmlDeviceGetNumaNodeId} only where GPUs are NUMA nodes themselves (Grace Hopper);
     * elsewhere the kernel knows, as the k8s-device-plugin reads it: {@code /sys/bus/pci/devices/<id>/numa_node},
     * where -1 means "no NUMA affinity".
     */
    private static OptionalInt sysfsNumaNode(PciInfo pci) {
        java.nio.file.Path file = java.nio.file.Path.of("/sys/bus/pci/devices", pci.sysfsBusId(), "numa_node");
        try {
            int node = Integer.parseInt(java.nio.file.Files.readString(file).strip());
            return node >= 0 ? OptionalInt.of(node) : OptionalInt.empty();
        } catch (java.io.IOException | NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    NvmlSession session() {
        return session;
    }

    MemorySegment handle() {
        return handle;
    }

    // ---- identity (cached) ----

    @Override
    public int index() {
        return index;
    }

    @Override
    public String uuid() {
        return uuid;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Brand brand() {
        return brand;
    }

    @Override
    public Architecture architecture() {
        return architecture;
    }

    @Override
    public ComputeCapability computeCapability() {
        return computeCapability;
    }

    @Override
    public PciInfo pci() {
        return pci;
    }

    @Override
    public int minorNumber() {
        return minorNumber;
    }

    @Override
    public OptionalInt numaNode() {
        return numaNode;
    }

    @Override
    public Optional<String> serial() {
        return serial;
    }

    @Override
    public Optional<String> vbiosVersion() {
        return vbiosVersion;
    }

    @Override
    public Optional<String> inforomImageVersion() {
        return inforomImageVersion;
    }

    // ---- state read on each call ----

    @Override
    public Optional<String> inforomVersion(InforomObject object) {
        String function = "nvmlDeviceGetInforomVersion";
        session.ensureOpen(function);
        int nvmlObject = switch (object) {
            case OEM -> NvmlNative.NVML_INFOROM_OEM();
            case ECC -> NvmlNative.NVML_INFOROM_ECC();
            case POWER -> NvmlNative.NVML_INFOROM_POWER();
        };
        MemorySegment s = scratch.acquire();
        try {
            return NvmlReturns.supported(NvmlNative.nvmlDeviceGetInforomVersion(handle, nvmlObject, s, INFOROM_BUFFER),
                    function) ? Optional.of(Conversions.string(s, INFOROM_BUFFER)) : Optional.empty();
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public Optional<EccMode> eccMode() {
        String function = "nvmlDeviceGetEccMode";
        session.ensureOpen(function);
        MemorySegment s = scratch.acquire();
        try {
            int enabled = NvmlNative.NVML_FEATURE_ENABLED();
            return NvmlReturns.supported(NvmlNative.nvmlDeviceGetEccMode(handle, s, at(s, 8)), function)
                    ? Optional.of(new EccMode(s.get(JAVA_INT, 0) == enabled, s.get(JAVA_INT, 8) == enabled))
                    : Optional.empty();
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public Optional<PcieThroughput> pcieThroughput() {
        String function = "nvmlDeviceGetPcieThroughput";
        session.ensureOpen(function);
        MemorySegment s = scratch.acquire();
        try {
            OptionalLong tx = optionalUnsignedInt(NvmlNative.nvmlDeviceGetPcieThroughput(handle,
                    NvmlNative.NVML_PCIE_UTIL_TX_BYTES(), s), function, s, 0);
            if (tx.isEmpty()) {
                return Optional.empty();
            }
            OptionalLong rx = optionalUnsignedInt(NvmlNative.nvmlDeviceGetPcieThroughput(handle,
                    NvmlNative.NVML_PCIE_UTIL_RX_BYTES(), at(s, 8)), function, s, 8);
            return rx.isPresent() ? Optional.of(new PcieThroughput(tx.getAsLong(), rx.getAsLong())) : Optional.empty();
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public List<NvLinkTraffic> nvLinkTraffic() {
        String function = "nvmlDeviceGetFieldValues";
        session.ensureOpen(function);
        int links = NvmlNative.NVML_NVLINK_MAX_LINKS();
        MemorySegment s = scratch.acquire();
        try {
            for (int link = 0; link < links; link++) {
                prepareField(s, 0, 2 * link, NvmlNative.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX(), link);
                prepareField(s, 0, 2 * link + 1, NvmlNative.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX(), link);
            }
            if (!NvmlReturns.supported(NvmlNative.nvmlDeviceGetFieldValues(handle, 2 * links, s), function)) {
                return List.of();
            }
            List<NvLinkTraffic> traffic = new ArrayList<>();
            for (int link = 0; link < links; link++) {
                boolean tx = fieldSucceeded(s, 0, 2 * link);
                boolean rx = fieldSucceeded(s, 0, 2 * link + 1);
                if (tx || rx) {
                    traffic.add(new NvLinkTraffic(link, tx ? fieldValue(s, 0, 2 * link) : 0,
                            rx ? fieldValue(s, 0, 2 * link + 1) : 0));
                }
            }
            return List.copyOf(traffic);
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public MemoryInfo memory() {
        session.ensureOpen("nvmlDeviceGetMemoryInfo");
        MemorySegment s = scratch.acquire();
        try {
            return readMemory(s, 0).orElseThrow(
                    () -> NvmlReturns.failure(NvmlReturns.NOT_SUPPORTED, "nvmlDeviceGetMemoryInfo"));
        } finally {
            scratch.release(s);
        }
    }

    /** The v2 query where it works (learned once), else v1; empty when the GPU reports neither. */
    private Optional<MemoryInfo> readMemory(MemorySegment s, long offset) {
        MemorySegment memory = at(s, offset);
        if (!Boolean.FALSE.equals(memoryV2) && NvmlLibrary.has("nvmlDeviceGetMemoryInfo_v2")) {
            nvmlMemory_v2_st.version(memory, Conversions.memoryV2Version());
            int rc = NvmlNative.nvmlDeviceGetMemoryInfo_v2(handle, memory);
            if (rc == NvmlReturns.SUCCESS) {
                memoryV2 = Boolean.TRUE;
                return Optional.of(Conversions.memoryV2(memory));
            }
            if (rc != NvmlReturns.NOT_SUPPORTED && rc != NvmlReturns.FUNCTION_NOT_FOUND
                    && rc != NvmlReturns.ARGUMENT_VERSION_MISMATCH) {
                throw NvmlReturns.failure(rc, "nvmlDeviceGetMemoryInfo_v2");
            }
            memoryV2 = Boolean.FALSE;
        }
        if (NvmlReturns.supported(NvmlNative.nvmlDeviceGetMemoryInfo(handle, memory), "nvmlDeviceGetMemoryInfo")) {
            return Optional.of(Conversions.memoryV1(memory));
        }
        return Optional.empty();
    }

    @Override
    public Optional<ComputeMode> computeMode() {
        session.ensureOpen("nvmlDeviceGetComputeMode");
        MemorySegment s = scratch.acquire();
        try {
            return NvmlReturns.supported(NvmlNative.nvmlDeviceGetComputeMode(handle, s), "nvmlDeviceGetComputeMode")
                    ? Optional.of(ComputeMode.fromNvml(s.get(JAVA_INT, 0))) : Optional.empty();
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public void setComputeMode(ComputeMode mode) {
        session.ensureOpen("nvmlDeviceSetComputeMode");
        NvmlReturns.check(NvmlNative.nvmlDeviceSetComputeMode(handle, mode.toNvml()), "nvmlDeviceSetComputeMode");
    }

    @Override
    public Optional<VirtualizationMode> virtualizationMode() {
        session.ensureOpen("nvmlDeviceGetVirtualizationMode");
        MemorySegment s = scratch.acquire();
        try {
            return NvmlReturns.supported(NvmlNative.nvmlDeviceGetVirtualizationMode(handle, s),
                    "nvmlDeviceGetVirtualizationMode")
                    ? Optional.of(VirtualizationMode.fromNvml(s.get(JAVA_INT, 0))) : Optional.empty();
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public Optional<VgpuLicenseState> vgpuLicenseState() {
        String function = "nvmlDeviceGetGridLicensableFeatures_v4";
        session.ensureOpen(function);
        if (!NvmlLibrary.has(function)) {
            return Optional.empty();
        }
        MemorySegment s = scratch.acquire();
        try {
            MemorySegment features = s.asSlice(0, nvmlGridLicensableFeatures_st.sizeof());
            features.fill((byte) 0);
            if (!NvmlReturns.supported(NvmlNative.nvmlDeviceGetGridLicensableFeatures_v4(handle, features), function)
                    || nvmlGridLicensableFeatures_st.isGridLicenseSupported(features) == 0) {
                return Optional.empty();
            }
            int count = Math.min(nvmlGridLicensableFeatures_st.licensableFeaturesCount(features),
                    (int) nvmlGridLicensableFeatures_st.gridLicensableFeatures$dimensions()[0]);
            MemorySegment chosen = null;
            for (int i = 0; i < count; i++) {
                MemorySegment feature = nvmlGridLicensableFeatures_st.gridLicensableFeatures(features, i);
                if (chosen == null || nvmlGridLicensableFeature_st.featureEnabled(feature) != 0
                        && nvmlGridLicensableFeature_st.featureEnabled(chosen) == 0) {
                    chosen = feature;
                }
            }
            return chosen == null ? Optional.empty() : Optional.of(new VgpuLicenseState(
                    nvmlGridLicensableFeature_st.featureCode(chosen), nvmlGridLicensableFeature_st.featureState(chosen)));
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public Optional<GpuFabricInfo> fabricInfo() {
        String function = "nvmlDeviceGetGpuFabricInfo";
        session.ensureOpen(function);
        if (!NvmlLibrary.has(function)) {
            return Optional.empty();
        }
        MemorySegment s = scratch.acquire();
        try {
            if (!NvmlReturns.supported(NvmlNative.nvmlDeviceGetGpuFabricInfo(handle, s), function)) {
                return Optional.empty();
            }
            GpuFabricInfo info = Conversions.fabricInfo(s);
            return info.state() == NvmlNative.NVML_GPU_FABRIC_STATE_NOT_SUPPORTED() ? Optional.empty() : Optional.of(info);
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public Optional<MigMode> migMode() {
        session.ensureOpen("nvmlDeviceGetMigMode");
        MemorySegment s = scratch.acquire();
        try {
            return NvmlReturns.supported(NvmlNative.nvmlDeviceGetMigMode(handle, s, s.asSlice(4)), "nvmlDeviceGetMigMode")
                    ? Optional.of(new MigMode(s.get(JAVA_INT, 0) == 1, s.get(JAVA_INT, 4) == 1))
                    : Optional.empty();
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public List<MigDevice> migDevices() {
        Optional<MigMode> mode = migMode();
        if (mode.isEmpty() || !mode.get().currentEnabled()) {
            migDevices.clear();
            return List.of();
        }
        int max;
        MemorySegment s = scratch.acquire();
        try {
            if (!NvmlReturns.supported(NvmlNative.nvmlDeviceGetMaxMigDeviceCount(handle, s),
                    "nvmlDeviceGetMaxMigDeviceCount")) {
                return List.of();
            }
            max = s.get(JAVA_INT, 0);
        } finally {
            scratch.release(s);
        }
        List<MigDevice> found = new ArrayList<>();
        for (int i = 0; i < max; i++) {
            MemorySegment migHandle;
            String migUuid;
            s = scratch.acquire();
            try {
                int rc = NvmlNative.nvmlDeviceGetMigDeviceHandleByIndex(handle, i, s);
                if (rc == NvmlReturns.NOT_FOUND || rc == NvmlReturns.INVALID_ARGUMENT) {
                    continue; // no MIG device at this index
                }
                NvmlReturns.check(rc, "nvmlDeviceGetMigDeviceHandleByIndex");
                migHandle = s.get(ValueLayout.ADDRESS, 0);
                NvmlReturns.check(NvmlNative.nvmlDeviceGetUUID(migHandle, s, UUID_BUFFER), "nvmlDeviceGetUUID");
                migUuid = Conversions.string(s, UUID_BUFFER);
            } finally {
                scratch.release(s);
            }
            String key = migUuid + "@" + migHandle.address() + "#" + i;
            NvmlMigDevice device = migDevices.get(key);
            if (device == null) {
                device = new NvmlMigDevice(this, i, migHandle, migUuid);
                migDevices.put(key, device);
            }
            found.add(device);
        }
        migDevices.values().removeIf(known -> !found.contains(known));
        return List.copyOf(found);
    }

    @Override
    public GpuTelemetry telemetry() {
        session.ensureOpen("nvmlDeviceGetTemperature");
        MemorySegment s = scratch.acquire();
        try {
            OptionalInt temperature = optionalInt(NvmlNative.nvmlDeviceGetTemperature(handle,
                    NvmlNative.NVML_TEMPERATURE_GPU(), at(s, T_TEMPERATURE)), "nvmlDeviceGetTemperature", s, T_TEMPERATURE);
            OptionalLong power = optionalUnsignedInt(NvmlNative.nvmlDeviceGetPowerUsage(handle, at(s, T_POWER)),
                    "nvmlDeviceGetPowerUsage", s, T_POWER);
            OptionalLong energy = NvmlReturns.supported(NvmlNative.nvmlDeviceGetTotalEnergyConsumption(handle,
                    at(s, T_ENERGY)), "nvmlDeviceGetTotalEnergyConsumption")
                    ? OptionalLong.of(s.get(JAVA_LONG, T_ENERGY)) : OptionalLong.empty();
            OptionalInt smClock = optionalInt(NvmlNative.nvmlDeviceGetClockInfo(handle, NvmlNative.NVML_CLOCK_SM(),
                    at(s, T_SM_CLOCK)), "nvmlDeviceGetClockInfo", s, T_SM_CLOCK);
            OptionalInt memClock = optionalInt(NvmlNative.nvmlDeviceGetClockInfo(handle, NvmlNative.NVML_CLOCK_MEM(),
                    at(s, T_MEM_CLOCK)), "nvmlDeviceGetClockInfo", s, T_MEM_CLOCK);
            // nvmlUtilization_t: gpu, then memory
            Optional<Utilization> utilization = NvmlReturns.supported(
                    NvmlNative.nvmlDeviceGetUtilizationRates(handle, at(s, T_UTILIZATION)), "nvmlDeviceGetUtilizationRates")
                    ? Optional.of(new Utilization(s.get(JAVA_INT, T_UTILIZATION), s.get(JAVA_INT, T_UTILIZATION + 4)))
                    : Optional.empty();
            OptionalInt encoder = optionalInt(NvmlNative.nvmlDeviceGetEncoderUtilization(handle, at(s, T_ENCODER),
                    at(s, T_SAMPLING)), "nvmlDeviceGetEncoderUtilization", s, T_ENCODER);
            OptionalInt decoder = optionalInt(NvmlNative.nvmlDeviceGetDecoderUtilization(handle, at(s, T_DECODER),
                    at(s, T_SAMPLING)), "nvmlDeviceGetDecoderUtilization", s, T_DECODER);
            OptionalLong replay = optionalUnsignedInt(NvmlNative.nvmlDeviceGetPcieReplayCounter(handle,
                    at(s, T_REPLAY)), "nvmlDeviceGetPcieReplayCounter", s, T_REPLAY);
            Optional<MemoryInfo> memory = readMemory(s, T_MEMORY);
            Optional<RemappedRows> remapped = NvmlReturns.supported(NvmlNative.nvmlDeviceGetRemappedRows(handle,
                    at(s, T_REMAPPED), at(s, T_REMAPPED_UNCORRECTABLE), at(s, T_REMAPPED_PENDING),
                    at(s, T_REMAPPED_FAILED)), "nvmlDeviceGetRemappedRows")
                    ? Optional.of(new RemappedRows(s.get(JAVA_INT, T_REMAPPED), s.get(JAVA_INT, T_REMAPPED_UNCORRECTABLE),
                    s.get(JAVA_INT, T_REMAPPED_PENDING) != 0, s.get(JAVA_INT, T_REMAPPED_FAILED) != 0))
                    : Optional.empty();
            Optional<Set<ClockEventReason>> reasons = Optional.empty();
            if (NvmlLibrary.has("nvmlDeviceGetCurrentClocksEventReasons") && NvmlReturns.supported(
                    NvmlNative.nvmlDeviceGetCurrentClocksEventReasons(handle, at(s, T_REASONS)),
                    "nvmlDeviceGetCurrentClocksEventReasons")) {
                reasons = Optional.of(ClockEventReason.fromMask(s.get(JAVA_LONG, T_REASONS)));
            }
            prepareField(s, T_FIELDS, 0, NvmlNative.NVML_FI_DEV_MEMORY_TEMP(), 0);
            prepareField(s, T_FIELDS, 1, NvmlNative.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX(), ALL_LINKS);
            prepareField(s, T_FIELDS, 2, NvmlNative.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX(), ALL_LINKS);
            OptionalInt memoryTemperature = OptionalInt.empty();
            OptionalLong nvLinkData = OptionalLong.empty();
            if (NvmlReturns.supported(NvmlNative.nvmlDeviceGetFieldValues(handle, 3, at(s, T_FIELDS)),
                    "nvmlDeviceGetFieldValues")) {
                if (fieldSucceeded(s, T_FIELDS, 0)) {
                    memoryTemperature = OptionalInt.of((int) fieldValue(s, T_FIELDS, 0));
                }
                boolean tx = fieldSucceeded(s, T_FIELDS, 1);
                boolean rx = fieldSucceeded(s, T_FIELDS, 2);
                if (tx || rx) {
                    nvLinkData = OptionalLong.of((tx ? fieldValue(s, T_FIELDS, 1) : 0) + (rx ? fieldValue(s, T_FIELDS, 2) : 0));
                }
            }
            return new GpuTelemetry(session.clock().instant(), temperature, memoryTemperature, power, energy,
                    smClock, memClock, utilization, encoder, decoder, replay, memory, nvLinkData, remapped, reasons);
        } finally {
            scratch.release(s);
        }
    }

    /** The scratch segment's slice at {@code offset}, reused rather than made anew (see {@link ScratchPool#at}). */
    private MemorySegment at(MemorySegment s, long offset) {
        return scratch.at(s, offset);
    }

    private static OptionalInt optionalInt(int rc, String function, MemorySegment s, long offset) {
        return NvmlReturns.supported(rc, function) ? OptionalInt.of(s.get(JAVA_INT, offset)) : OptionalInt.empty();
    }

    private static OptionalLong optionalUnsignedInt(int rc, String function, MemorySegment s, long offset) {
        return NvmlReturns.supported(rc, function)
                ? OptionalLong.of(Integer.toUnsignedLong(s.get(JAVA_INT, offset))) : OptionalLong.empty();
    }

    /** Zeroes {@code nvmlFieldValue_t} number {@code i} of the array at {@code base} and sets its id and scope. */
    private static void prepareField(MemorySegment s, long base, int i, int fieldId, int scopeId) {
        long field = base + i * FIELD_BYTES;
        for (long at = 0; at < FIELD_BYTES; at += 8) {
            s.set(JAVA_LONG, field + at, 0L);
        }
        s.set(JAVA_INT, field + FIELD_ID, fieldId);
        s.set(JAVA_INT, field + FIELD_SCOPE, scopeId);
    }

    /** Whether NVML filled field {@code i} (its own {@code nvmlReturn} is success). */
    private static boolean fieldSucceeded(MemorySegment s, long base, int i) {
        return s.get(JAVA_INT, base + i * FIELD_BYTES + FIELD_RETURN) == NvmlReturns.SUCCESS;
    }

    /** Field {@code i}'s value as a long, read by its {@code valueType}. */
    private static long fieldValue(MemorySegment s, long base, int i) {
        long field = base + i * FIELD_BYTES;
        return Conversions.fieldValue(s, field + FIELD_VALUE, s.get(JAVA_INT, field + FIELD_TYPE));
    }

    @Override
    public OptionalLong eccErrors(MemoryErrorType type, EccCounterType counter) {
        session.ensureOpen("nvmlDeviceGetTotalEccErrors");
        MemorySegment s = scratch.acquire();
        try {
            return NvmlReturns.supported(NvmlNative.nvmlDeviceGetTotalEccErrors(handle,
                    type == MemoryErrorType.CORRECTED ? NvmlNative.NVML_MEMORY_ERROR_TYPE_CORRECTED()
                            : NvmlNative.NVML_MEMORY_ERROR_TYPE_UNCORRECTED(),
                    counter == EccCounterType.VOLATILE ? NvmlNative.NVML_VOLATILE_ECC() : NvmlNative.NVML_AGGREGATE_ECC(),
                    s), "nvmlDeviceGetTotalEccErrors") ? OptionalLong.of(s.get(JAVA_LONG, 0)) : OptionalLong.empty();
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public OptionalLong retiredPages(PageRetirementCause cause) {
        String function = "nvmlDeviceGetRetiredPages";
        session.ensureOpen(function);
        MemorySegment s = scratch.acquire();
        try {
            s.set(JAVA_INT, 0, 0); // ask for the count only: a zero-length address buffer
            int rc = NvmlNative.nvmlDeviceGetRetiredPages(handle,
                    cause == PageRetirementCause.DOUBLE_BIT_ECC_ERROR
                            ? NvmlNative.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR()
                            : NvmlNative.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS(),
                    s, at(s, 64));
            if (rc == NvmlReturns.INSUFFICIENT_SIZE) {
                return OptionalLong.of(Integer.toUnsignedLong(s.get(JAVA_INT, 0)));
            }
            return NvmlReturns.supported(rc, function)
                    ? OptionalLong.of(Integer.toUnsignedLong(s.get(JAVA_INT, 0))) : OptionalLong.empty();
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public Optional<Boolean> retiredPagesPending() {
        session.ensureOpen("nvmlDeviceGetRetiredPagesPendingStatus");
        MemorySegment s = scratch.acquire();
        try {
            return NvmlReturns.supported(NvmlNative.nvmlDeviceGetRetiredPagesPendingStatus(handle, s),
                    "nvmlDeviceGetRetiredPagesPendingStatus")
                    ? Optional.of(s.get(JAVA_INT, 0) == NvmlNative.NVML_FEATURE_ENABLED()) : Optional.empty();
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public OptionalLong violationNanos(PerfPolicy policy) {
        session.ensureOpen("nvmlDeviceGetViolationStatus");
        MemorySegment s = scratch.acquire();
        try {
            // nvmlViolationTime_t: referenceTime, then violationTime (ns)
            return NvmlReturns.supported(NvmlNative.nvmlDeviceGetViolationStatus(handle, policy.nvmlValue(), s),
                    "nvmlDeviceGetViolationStatus") ? OptionalLong.of(s.get(JAVA_LONG, 8)) : OptionalLong.empty();
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public Optional<NvLinkErrorTotals> nvLinkErrorTotals() {
        session.ensureOpen("nvmlDeviceGetFieldValues");
        MemorySegment s = scratch.acquire();
        try {
            prepareField(s, 0, 0, NvmlNative.NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL(), 0);
            prepareField(s, 0, 1, NvmlNative.NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL(), 0);
            prepareField(s, 0, 2, NvmlNative.NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL(), 0);
            prepareField(s, 0, 3, NvmlNative.NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL(), 0);
            if (!NvmlReturns.supported(NvmlNative.nvmlDeviceGetFieldValues(handle, 4, s), "nvmlDeviceGetFieldValues")) {
                return Optional.empty();
            }
            long[] totals = new long[4];
            boolean any = false;
            for (int i = 0; i < 4; i++) {
                if (fieldSucceeded(s, 0, i)) {
                    totals[i] = fieldValue(s, 0, i);
                    any = true;
                }
            }
            return any ? Optional.of(new NvLinkErrorTotals(totals[0], totals[1], totals[2], totals[3])) : Optional.empty();
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public List<NvLink> nvLinks() {
        session.ensureOpen("nvmlDeviceGetNvLinkState");
        List<NvLink> links = new ArrayList<>();
        MemorySegment s = scratch.acquire();
        try {
            for (int link = 0; link < NvmlNative.NVML_NVLINK_MAX_LINKS(); link++) {
                int rc = NvmlNative.nvmlDeviceGetNvLinkState(handle, link, s);
                if (rc == NvmlReturns.NOT_SUPPORTED || rc == NvmlReturns.INVALID_ARGUMENT || rc == NvmlReturns.NOT_FOUND) {
                    continue; // this GPU has no such link
                }
                NvmlReturns.check(rc, "nvmlDeviceGetNvLinkState");
                boolean active = s.get(JAVA_INT, 0) == NvmlNative.NVML_FEATURE_ENABLED();
                Optional<String> remote = Optional.empty();
                if (active) {
                    MemorySegment pciInfo = s.asSlice(64, nvmlPciInfo_st.sizeof());
                    int remoteRc = NvmlNative.nvmlDeviceGetNvLinkRemotePciInfo_v2(handle, link, pciInfo);
                    if (remoteRc != NvmlReturns.NOT_SUPPORTED && remoteRc != NvmlReturns.NOT_FOUND) {
                        NvmlReturns.check(remoteRc, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
                        remote = Optional.of(Conversions.pciInfo(pciInfo).busId());
                    }
                }
                links.add(new NvLink(link, active, remote));
            }
        } finally {
            scratch.release(s);
        }
        return List.copyOf(links);
    }

    @Override
    public TopologyLevel commonAncestor(GpuDevice other) {
        NvmlGpu peer = session.own(other, "other");
        session.ensureOpen("nvmlDeviceGetTopologyCommonAncestor");
        MemorySegment s = scratch.acquire();
        try {
            NvmlReturns.check(NvmlNative.nvmlDeviceGetTopologyCommonAncestor(handle, peer.handle, s),
                    "nvmlDeviceGetTopologyCommonAncestor");
            return TopologyLevel.fromNvml(s.get(JAVA_INT, 0));
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public P2pStatus p2pStatus(GpuDevice other, P2pCapability capability) {
        NvmlGpu peer = session.own(other, "other");
        session.ensureOpen("nvmlDeviceGetP2PStatus");
        MemorySegment s = scratch.acquire();
        try {
            NvmlReturns.check(NvmlNative.nvmlDeviceGetP2PStatus(handle, peer.handle, capability.nvmlValue(), s),
                    "nvmlDeviceGetP2PStatus");
            return P2pStatus.fromNvml(s.get(JAVA_INT, 0));
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public boolean gpmSupported() {
        String function = "nvmlGpmQueryDeviceSupport";
        session.ensureOpen(function);
        Boolean known = gpm;
        if (known != null) {
            return known;
        }
        boolean supported = false;
        if (NvmlLibrary.has(function)) {
            MemorySegment s = scratch.acquire();
            try {
                s.set(JAVA_INT, 0, NvmlNative.NVML_GPM_SUPPORT_VERSION());
                s.set(JAVA_INT, 4, 0);
                supported = NvmlReturns.supported(NvmlNative.nvmlGpmQueryDeviceSupport(handle, s), function)
                        && s.get(JAVA_INT, 4) != 0;
            } finally {
                scratch.release(s);
            }
        }
        gpm = supported;
        return supported;
    }

    @Override
    public GpmSampler openGpmSampler() {
        if (!gpmSupported()) {
            throw NvmlReturns.failure(NvmlReturns.NOT_SUPPORTED, "nvmlGpmQueryDeviceSupport");
        }
        return new NvmlGpmSampler(this, OptionalInt.empty());
    }

    @Override
    public String toString() {
        return "GPU " + index + " " + uuid + " (" + name + ")";
    }
}
