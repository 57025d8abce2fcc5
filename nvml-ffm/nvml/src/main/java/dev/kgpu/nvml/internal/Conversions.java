package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.GpuFabricInfo;
import dev.kgpu.nvml.MemoryInfo;
import dev.kgpu.nvml.PciInfo;
import dev.kgpu.nvml.internal.bindings.NvmlNative;
import dev.kgpu.nvml.internal.bindings.nvmlGpuFabricInfo_t;
import dev.kgpu.nvml.internal.bindings.nvmlMemory_st;
import dev.kgpu.nvml.internal.bindings.nvmlMemory_v2_st;
import dev.kgpu.nvml.internal.bindings.nvmlPciInfo_st;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.OptionalLong;

/**
 * Conversions from NVML's C structs (as native segments) to the public records. Package-private, so no
 * public signature carries a {@code MemorySegment}, in the way java-tree-sitter's records convert
 * through package-private {@code from(MemorySegment)} methods.
 *
 * <p>Thread-safety: stateless.
 */
final class Conversions {

    private Conversions() {
    }

    /** A NUL-terminated C string of at most {@code capacity} bytes at the start of {@code buffer}. */
    static String string(MemorySegment buffer, long capacity) {
        long limit = Math.min(capacity, buffer.byteSize());
        long length = 0;
        while (length < limit && buffer.get(ValueLayout.JAVA_BYTE, length) != 0) {
            length++;
        }
        byte[] bytes = buffer.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** {@code nvmlPciInfo_t} (v3). */
    static PciInfo pciInfo(MemorySegment pci) {
        return new PciInfo(
                string(nvmlPciInfo_st.busId(pci), nvmlPciInfo_st.busId$layout().byteSize()),
                nvmlPciInfo_st.domain(pci),
                nvmlPciInfo_st.bus(pci),
                nvmlPciInfo_st.device(pci),
                nvmlPciInfo_st.pciDeviceId(pci),
                nvmlPciInfo_st.pciSubSystemId(pci));
    }

    /** {@code nvmlMemory_t}: no reserved memory reported. */
    static MemoryInfo memoryV1(MemorySegment memory) {
        return new MemoryInfo(nvmlMemory_st.total(memory), nvmlMemory_st.free(memory), nvmlMemory_st.used(memory),
                OptionalLong.empty());
    }

    /** {@code nvmlMemory_v2_t}: with the memory the driver reserves. */
    static MemoryInfo memoryV2(MemorySegment memory) {
        return new MemoryInfo(nvmlMemory_v2_st.total(memory), nvmlMemory_v2_st.free(memory),
                nvmlMemory_v2_st.used(memory), OptionalLong.of(nvmlMemory_v2_st.reserved(memory)));
    }

    /** {@code NVML_STRUCT_VERSION(Memory, 2)}: the struct size with the version in the top byte. */
    static int memoryV2Version() {
        return (int) nvmlMemory_v2_st.sizeof() | (2 << 24);
    }

    /** {@code nvmlGpuFabricInfo_t}; the cluster UUID's 16 bytes in the usual 8-4-4-4-12 form. */
    static GpuFabricInfo fabricInfo(MemorySegment info) {
        byte[] raw = nvmlGpuFabricInfo_t.clusterUuid(info).toArray(ValueLayout.JAVA_BYTE);
        String hex = HexFormat.of().formatHex(raw);
        String uuid = hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                + hex.substring(16, 20) + "-" + hex.substring(20, 32);
        return new GpuFabricInfo(uuid, Integer.toUnsignedLong(nvmlGpuFabricInfo_t.cliqueId(info)),
                Byte.toUnsignedInt(nvmlGpuFabricInfo_t.state(info)));
    }

    /**
     * The {@code nvmlValue_t} at {@code offset} of {@code segment}, of type {@code valueType}, as a long;
     * unsigned 32-bit values are widened without sign, doubles are truncated.
     */
    static long fieldValue(MemorySegment segment, long offset, int valueType) {
        // every member of the nvmlValue_t union starts at its beginning
        if (valueType == NvmlNative.NVML_VALUE_TYPE_DOUBLE()) {
            return (long) segment.get(ValueLayout.JAVA_DOUBLE, offset);
        } else if (valueType == NvmlNative.NVML_VALUE_TYPE_UNSIGNED_INT()) {
            return Integer.toUnsignedLong(segment.get(ValueLayout.JAVA_INT, offset));
        } else if (valueType == NvmlNative.NVML_VALUE_TYPE_SIGNED_INT()) {
            return segment.get(ValueLayout.JAVA_INT, offset);
        }
        return segment.get(ValueLayout.JAVA_LONG, offset); // unsigned long, (un)signed long long
    }
}
