package dev.kgpu.exporter.collector;

import dev.kgpu.exporter.counters.Counter;
import dev.kgpu.exporter.metrics.Entity;
import dev.kgpu.nvml.Brand;
import dev.kgpu.nvml.InforomObject;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The values of the counters file's {@code label} rows for each entity of one collection (a GPU instance
 * takes its GPU's). A value NVML does not have is left out, as DCGM's blank values are.
 */
final class LabelRows {

    private final Map<String, SortedMap<String, String>> byGpu = new HashMap<>();

    LabelRows(List<Counter> labels, NodeSample node) {
        for (GpuSample gpu : node.gpus()) {
            TreeMap<String, String> values = new TreeMap<>();
            for (Counter label : labels) {
                value(label.field(), node, gpu).ifPresent(v -> values.put(label.fieldName(), v));
            }
            byGpu.put(gpu.gpu().gpuUuid(), Collections.unmodifiableSortedMap(values));
        }
    }

    SortedMap<String, String> of(Entity entity) {
        return byGpu.getOrDefault(entity.gpuUuid(), Collections.emptySortedMap());
    }

    private static Optional<String> value(String field, NodeSample node, GpuSample gpu) {
        return switch (field) {
            case "DCGM_FI_DRIVER_VERSION" -> nonBlank(node.driverVersion());
            case "DCGM_FI_NVML_VERSION" -> nonBlank(node.nvmlVersion());
            case "DCGM_FI_DEV_BRAND" -> Optional.of(brand(gpu.brand()));
            case "DCGM_FI_DEV_SERIAL" -> gpu.serial().flatMap(LabelRows::nonBlank);
            case "DCGM_FI_DEV_VBIOS_VERSION" -> gpu.vbiosVersion().flatMap(LabelRows::nonBlank);
            case "DCGM_FI_DEV_INFOROM_IMAGE_VER" -> gpu.inforomImage().flatMap(LabelRows::nonBlank);
            case "DCGM_FI_DEV_OEM_INFOROM_VER" -> inforom(gpu, InforomObject.OEM);
            case "DCGM_FI_DEV_ECC_INFOROM_VER" -> inforom(gpu, InforomObject.ECC);
            case "DCGM_FI_DEV_POWER_INFOROM_VER" -> inforom(gpu, InforomObject.POWER);
            case "DCGM_FI_DEV_NAME" -> Optional.of(gpu.gpu().modelName());
            case "DCGM_FI_DEV_UUID" -> Optional.of(gpu.gpu().gpuUuid());
            case "DCGM_FI_DEV_PCI_BUSID" -> Optional.of(gpu.gpu().pciBusId());
            default -> Optional.empty();
        };
    }

    private static Optional<String> inforom(GpuSample gpu, InforomObject object) {
        return Optional.ofNullable(gpu.inforomVersions().get(object)).flatMap(LabelRows::nonBlank);
    }

    private static Optional<String> nonBlank(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }

    /** DCGM's words for NVML's brands ({@code DCGM_FI_DEV_BRAND}). */
    static String brand(Brand brand) {
        return switch (brand) {
            case QUADRO -> "Quadro";
            case TESLA -> "Tesla";
            case NVS -> "NVS";
            case GRID -> "Grid";
            case NVIDIA_VAPPS -> "NVIDIA Virtual Applications";
            case NVIDIA_VPC -> "NVIDIA Virtual PC";
            case NVIDIA_VCS -> "NVIDIA Virtual Compute Server";
            case NVIDIA_VWS -> "NVIDIA RTX Virtual Workstation";
            case NVIDIA_CLOUD_GAMING -> "NVIDIA vGaming";
            case GEFORCE -> "GeForce";
            case TITAN -> "Titan";
            case QUADRO_RTX -> "Quadro RTX";
            case NVIDIA_RTX -> "NVIDIA RTX";
            case NVIDIA -> "NVIDIA";
            case GEFORCE_RTX -> "GeForce RTX";
            case TITAN_RTX -> "Titan RTX";
            case UNKNOWN -> "Unknown";
        };
    }
}
