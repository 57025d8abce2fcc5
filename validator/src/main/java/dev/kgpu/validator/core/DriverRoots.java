package dev.kgpu.validator.core;

import java.util.List;
import java.util.Objects;

/**
 * Where the driver and its device nodes live, on the host and inside the validator's container; written
 * into {@code driver-ready} in NVIDIA's shell-sourceable form so that other agents can
 * {@code . /run/nvidia/validations/driver-ready}.
 *
 * @param driverRoot        host path of the driver installation, {@code /} for a host driver
 * @param driverRootCtrPath where the validator sees that root ({@code /host} for a host driver)
 * @param devRoot           host path under which {@code dev/nvidia*} exist
 * @param devRootCtrPath    where the validator sees that dev root
 */
public record DriverRoots(String driverRoot, String driverRootCtrPath, String devRoot, String devRootCtrPath) {

    public DriverRoots {
        Objects.requireNonNull(driverRoot, "driverRoot");
        Objects.requireNonNull(driverRootCtrPath, "driverRootCtrPath");
        Objects.requireNonNull(devRoot, "devRoot");
        Objects.requireNonNull(devRootCtrPath, "devRootCtrPath");
    }

    /** NVIDIA's rule: the driver is a host driver when its root is the host's root. */
    public boolean isHostDriver() {
        return driverRoot.equals("/");
    }

    /** The {@code driver-ready} lines NVIDIA writes, in NVIDIA's order, followed by kgpu's driver versions. */
    public List<String> statusLines(DriverSnapshot snapshot) {
        return List.of(
                ShellLine.of("IS_HOST_DRIVER", Boolean.toString(isHostDriver())),
                ShellLine.of("NVIDIA_DRIVER_ROOT", driverRoot),
                ShellLine.of("DRIVER_ROOT_CTR_PATH", driverRootCtrPath),
                ShellLine.of("NVIDIA_DEV_ROOT", devRoot),
                ShellLine.of("DEV_ROOT_CTR_PATH", devRootCtrPath),
                ShellLine.of("DRIVER_VERSION", snapshot.driverVersion()),
                ShellLine.of("CUDA_DRIVER_VERSION", snapshot.cudaVersion()));
    }
}
