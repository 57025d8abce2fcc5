package dev.kgpu.nvml;

/**
 * NVLink fabric membership of a fabric-attached GPU (GB200 NVL and similar).
 *
 * @param clusterUuid the fabric cluster's UUID
 * @param cliqueId    the clique within the cluster
 * @param state       {@code NVML_GPU_FABRIC_STATE_*}; {@link #COMPLETED} once registration finished
 */
public record GpuFabricInfo(String clusterUuid, long cliqueId, int state) {

    public static final int COMPLETED = 3;

    /** GFD's {@code nvidia.com/gpu.clique} value, {@code <clusterUuid>.<cliqueId>}. */
    public String clique() {
        return clusterUuid + "." + cliqueId;
    }
}
