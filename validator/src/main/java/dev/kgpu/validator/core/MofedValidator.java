package dev.kgpu.validator.core;

import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * gpu-operator's {@code mofed} component: with GPUDirect RDMA on ({@code GPU_DIRECT_RDMA_ENABLED=true}) and a
 * Mellanox device on the node, the MOFED driver must be ready: {@code mlx5_core} loaded when MOFED is the
 * host's ({@code USE_HOST_MOFED=true}), else the MOFED driver container's {@code .driver-ready} flag present.
 * Otherwise it is skipped, as NVIDIA skips it: it passes and writes no {@code mofed-ready}. NVIDIA learns of
 * the Mellanox device from NFD's {@code pci-15b3.present} node label; kgpu reads the PCI bus, where NFD
 * learns it.
 */
public final class MofedValidator implements ComponentValidator {

    private final boolean rdmaEnabled;
    private final boolean hostMofed;
    private final KernelModules modules;
    private final PciDevices pci;
    private final BooleanSupplier containerDriverReady;

    /**
     * @param containerDriverReady whether the MOFED driver container's {@code /run/mellanox/drivers/.driver-ready} exists
     */
    public MofedValidator(boolean rdmaEnabled, boolean hostMofed, KernelModules modules, PciDevices pci,
                          BooleanSupplier containerDriverReady) {
        this.rdmaEnabled = rdmaEnabled;
        this.hostMofed = hostMofed;
        this.modules = Objects.requireNonNull(modules, "modules");
        this.pci = Objects.requireNonNull(pci, "pci");
        this.containerDriverReady = Objects.requireNonNull(containerDriverReady, "containerDriverReady");
    }

    @Override
    public Component component() {
        return Component.MOFED;
    }

    @Override
    public Evidence validate() {
        if (!rdmaEnabled) {
            return Evidence.withoutStatusFile("skipped: GPUDirect RDMA is off (GPU_DIRECT_RDMA_ENABLED is not true)");
        }
        int mellanox;
        try {
            mellanox = pci.count(PciDevices.MELLANOX);
        } catch (java.io.UncheckedIOException e) {
            throw new ComponentFailure(Layer.DRIVER, "could not read the PCI devices: " + e.getMessage());
        }
        if (mellanox == 0) {
            return Evidence.withoutStatusFile("skipped: no Mellanox (15b3) PCI device on this node");
        }
        if (hostMofed) {
            if (!modules.loaded("mlx5_core")) {
                throw new ComponentFailure(Layer.DRIVER, "kernel module mlx5_core is not loaded (lsmod lists no"
                        + " mlx5_core) although USE_HOST_MOFED=true says the host installs MOFED");
            }
            return Evidence.of("kernel module mlx5_core is loaded (host MOFED, " + mellanox + " Mellanox PCI functions)");
        }
        if (!containerDriverReady.getAsBoolean()) {
            throw new ComponentFailure(Layer.DRIVER, "the MOFED driver container is not ready:"
                    + " /run/mellanox/drivers/.driver-ready does not exist");
        }
        return Evidence.of("the MOFED driver container is ready (" + mellanox + " Mellanox PCI functions)");
    }
}
