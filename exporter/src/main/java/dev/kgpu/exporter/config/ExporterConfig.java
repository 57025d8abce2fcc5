package dev.kgpu.exporter.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Every setting of the exporter, read once at start ({@link ExporterConfigLoader}) and checked here.
 * Names follow dcgm-exporter's flags and environment variables.
 *
 * @param collectors             the counters file ({@code -f}, {@code DCGM_EXPORTER_COLLECTORS})
 * @param listenHost             host part of {@code DCGM_EXPORTER_LISTEN}; empty string = all interfaces
 * @param listenPort             port part of {@code DCGM_EXPORTER_LISTEN}
 * @param interval               collection interval ({@code DCGM_EXPORTER_INTERVAL}, milliseconds)
 * @param kubernetes             attribute series to pods ({@code DCGM_EXPORTER_KUBERNETES})
 * @param podResourcesSocket     the kubelet's pod-resources socket ({@code DCGM_POD_RESOURCES_KUBELET_SOCKET})
 * @param nvidiaResourceNames    extra resource names that hold GPUs ({@code NVIDIA_RESOURCE_NAMES})
 * @param gpuIdType              how device ids name GPUs ({@code DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE})
 * @param virtualGpus            one series per pod sharing a GPU ({@code KUBERNETES_VIRTUAL_GPUS})
 * @param xidCountWindow         window of {@code DCGM_EXP_XID_ERRORS_COUNT} ({@code DCGM_EXPORTER_XID_COUNT_WINDOW_SIZE})
 * @param clockEventsCountWindow window of {@code DCGM_EXP_CLOCK_EVENTS_COUNT}
 * @param hostname               the node label, or empty with {@code DCGM_EXPORTER_NO_HOSTNAME}
 * @param replaceBlanksInModelName {@code NVIDIA A100-SXM4-80GB} becomes {@code NVIDIA-A100-SXM4-80GB}
 */
public record ExporterConfig(
        CollectorsFile collectors,
        String listenHost,
        int listenPort,
        Duration interval,
        boolean kubernetes,
        Path podResourcesSocket,
        List<String> nvidiaResourceNames,
        GpuIdType gpuIdType,
        boolean virtualGpus,
        Duration xidCountWindow,
        Duration clockEventsCountWindow,
        Optional<HostnameLabel> hostname,
        boolean replaceBlanksInModelName) {

    public ExporterConfig {
        if (collectors == null || listenHost == null || interval == null || podResourcesSocket == null
                || nvidiaResourceNames == null || gpuIdType == null || xidCountWindow == null
                || clockEventsCountWindow == null || hostname == null) {
            throw new IllegalArgumentException("every exporter setting must be present (defaults are applied before)");
        }
        if (listenPort < 0 || listenPort > 65535) {
            throw new IllegalArgumentException("DCGM_EXPORTER_LISTEN port was '" + listenPort
                    + "' but it must be between 0 and 65535");
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("DCGM_EXPORTER_INTERVAL was '" + interval.toMillis()
                    + "' but it must be a positive number of milliseconds");
        }
        nvidiaResourceNames = List.copyOf(nvidiaResourceNames);
    }

    /**
     * The counters file: a path on disk, or one of the files built into the exporter.
     *
     * @param path    what the user named (or the default path)
     * @param builtIn the built-in file to read instead when {@code path} is one of dcgm-exporter's default
     *                paths and does not exist on disk
     */
    public record CollectorsFile(Path path, Optional<String> builtIn) {
    }
}
