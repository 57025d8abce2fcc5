package dev.kgpu.nvml;

import java.util.Optional;

/**
 * One NVLink of a GPU.
 *
 * @param link          link number, 0-based
 * @param active        whether the link is up
 * @param remoteBusId   PCI bus id (NVML form) of the device at the other end, when the link is up
 */
public record NvLink(int link, boolean active, Optional<String> remoteBusId) {
}
