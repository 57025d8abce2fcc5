package dev.kgpu.nvml;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One physical GPU (never a MIG device; see {@link MigDevice}).
 *
 * <p>Identity values (UUID, name, PCI info, ...) are read once when the device is first handed out and
 * cached; everything else is read from NVML on each call. A value the GPU does not have
 * ({@code NVML_ERROR_NOT_SUPPORTED}) is an empty {@code Optional}; any other NVML failure is an
 * {@link NvmlException}.
 *
 * <p>Thread-safety: safe for concurrent use. Reads take their native buffers from a small pool of
 * preallocated segments, so the telemetry path allocates no native memory per call.
 */
public interface GpuDevice {

    /** NVML index, 0-based. */
    int index();

    /** {@code GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}. */
    String uuid();

    /** Product name, e.g. {@code NVIDIA A100-SXM4-80GB}. */
    String name();

    Brand brand();

    Architecture architecture();

    ComputeCapability computeCapability();

    PciInfo pci();

    /** The {@code N} in {@code /dev/nvidiaN}. */
    int minorNumber();

    /** The NUMA node the GPU is attached to, or empty when the platform does not say. */
    OptionalInt numaNode();

    /** Framebuffer memory now (total, free, used and, where NVML reports it, reserved). */
    MemoryInfo memory();

    Optional<String> serial();

    Optional<String> vbiosVersion();

    Optional<String> inforomImageVersion();

    /** The version of one InfoROM object ({@code nvmlDeviceGetInforomVersion}), read on each call; empty when the board lacks it. */
    Optional<String> inforomVersion(InforomObject object);

    Optional<ComputeMode> computeMode();

    /**
     * Sets the compute mode ({@code nvmlDeviceSetComputeMode}): at once, until the node reboots. NVML refuses it
     * without root ({@link NvmlException.NoPermission}), on GPUs without compute modes and on MIG-enabled GPUs
     * for any mode but {@link ComputeMode#DEFAULT} ({@link NvmlException.NotSupportedHere}).
     */
    void setComputeMode(ComputeMode mode);

    Optional<VirtualizationMode> virtualizationMode();

    /** vGPU guest licence state; empty on GPUs that are not vGPU guests. */
    Optional<VgpuLicenseState> vgpuLicenseState();

    /** NVLink fabric membership (clique), on fabric-attached GPUs only. */
    Optional<GpuFabricInfo> fabricInfo();

    /** MIG mode, or empty on GPUs without MIG. */
    Optional<MigMode> migMode();

    /** The MIG devices configured on this GPU now (empty when MIG is off or unsupported). */
    List<MigDevice> migDevices();

    /** One read of every frequently sampled value; what the GPU lacks is empty in the result. */
    GpuTelemetry telemetry();

    /** Whether ECC is on now and after the next reboot ({@code nvmlDeviceGetEccMode}), or empty on boards without ECC. */
    Optional<EccMode> eccMode();

    /**
     * PCIe traffic over NVML's last sample ({@code nvmlDeviceGetPcieThroughput}, both directions), or empty where
     * NVML does not report it (in virtual machines). On a real GPU each direction takes NVML about 20 ms to
     * sample, so this is not part of {@link #telemetry()}.
     */
    Optional<PcieThroughput> pcieThroughput();

    /** ECC error count, or empty when ECC is off or unsupported. */
    OptionalLong eccErrors(MemoryErrorType type, EccCounterType counter);

    /** Number of retired pages for {@code cause}, or empty when page retirement is unsupported. */
    OptionalLong retiredPages(PageRetirementCause cause);

    /** Whether retired pages wait for a reboot to take effect, or empty when unsupported. */
    Optional<Boolean> retiredPagesPending();

    /** Accumulated time the clocks were held back by {@code policy}, in nanoseconds, or empty. */
    OptionalLong violationNanos(PerfPolicy policy);

    /** NVLink error counters summed over all links, or empty on GPUs without NVLink. */
    Optional<NvLinkErrorTotals> nvLinkErrorTotals();

    /**
     * The data each NVLink of this GPU has carried, per link in link order (one {@code nvmlDeviceGetFieldValues}
     * call); empty on GPUs without NVLink. A link NVML does not answer for is left out.
     */
    List<NvLinkTraffic> nvLinkTraffic();

    /** Every NVLink of this GPU (empty on GPUs without NVLink). */
    List<NvLink> nvLinks();

    /** The closest common PCIe ancestor of this GPU and {@code other}. */
    TopologyLevel commonAncestor(GpuDevice other);

    /** Whether this GPU can reach {@code other} peer-to-peer over {@code capability}. */
    P2pStatus p2pStatus(GpuDevice other, P2pCapability capability);

    /** Whether NVML's GPU performance monitoring (GPM, Hopper and later) works on this GPU. */
    boolean gpmSupported();

    /**
     * Opens a GPM sampler that owns two native sample buffers; each {@link GpmSampler#sample()} compares
     * the new sample with the previous one. Fails with {@link NvmlException.NotSupportedHere} when
     * {@link #gpmSupported()} is false.
     */
    GpmSampler openGpmSampler();
}
