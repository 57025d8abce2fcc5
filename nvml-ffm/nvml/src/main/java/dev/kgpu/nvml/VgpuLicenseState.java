package dev.kgpu.nvml;

/**
 * Whether a vGPU guest holds a licence, as dcgm-exporter's {@code DCGM_FI_DEV_VGPU_LICENSE_STATUS} reports it
 * ({@link #licensed()} is 1, otherwise 0).
 *
 * @param featureCode the licensed feature ({@code NVML_GRID_LICENSE_FEATURE_CODE_*})
 * @param state       NVML's licence state ({@code NVML_GRID_LICENSE_STATE_*})
 */
public record VgpuLicenseState(int featureCode, int state) {

    /** {@code NVML_GRID_LICENSE_STATE_LICENSED}. */
    public static final int LICENSED = 5;

    public boolean licensed() {
        return state == LICENSED;
    }
}
