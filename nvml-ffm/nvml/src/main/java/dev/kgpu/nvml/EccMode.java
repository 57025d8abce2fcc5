package dev.kgpu.nvml;

/**
 * {@code nvmlDeviceGetEccMode}: whether ECC is on now, and whether it will be after the next reboot (a
 * change made with {@code nvidia-smi -e} waits for one).
 *
 * @param current ECC is on now
 * @param pending ECC will be on after the next reboot
 */
public record EccMode(boolean current, boolean pending) {
}
