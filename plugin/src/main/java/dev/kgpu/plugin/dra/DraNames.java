package dev.kgpu.plugin.dra;

import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.MigInstance;

import java.util.Locale;

/**
 * The names NVIDIA's DRA driver for GPUs (k8s-dra-driver-gpu, {@code gpu-kubelet-plugin}) uses, which kgpu keeps so
 * that ResourceClaims, DeviceClasses and CEL selectors written for it work unchanged.
 */
public final class DraNames {

    /** The driver, the domain of its attributes and the prefix of its CDI kind. */
    public static final String DRIVER = "gpu.nvidia.com";
    /** The per-claim CDI kind: {@code k8s.} + driver, class {@code claim}. */
    public static final String CDI_KIND = "k8s." + DRIVER + "/claim";
    /** The {@code type} attribute of a whole GPU. */
    public static final String TYPE_GPU = "gpu";
    /** The {@code type} attribute of a MIG device. */
    public static final String TYPE_MIG = "mig";
    /** The kubelet's standard attribute of a device's PCI address (dynamic-resource-allocation {@code deviceattribute}). */
    public static final String PCI_BUS_ID = "resource.kubernetes.io/pciBusID";
    /** The registration socket's name in the kubelet's plugins_registry folder. */
    public static final String REGISTRATION_SOCKET = DRIVER + "-reg.sock";
    /** The DRA service's socket in the driver's own folder under the kubelet's plugins folder. */
    public static final String SERVICE_SOCKET = "dra.sock";
    /** kgpu's checkpoint of prepared claims, in the driver's folder (not NVIDIA's {@code checkpoint.json}: another format). */
    public static final String CHECKPOINT_FILE = "kgpu-checkpoint.json";

    private DraNames() {
    }

    /** {@code gpu-<minor>}: NVIDIA names a GPU by its minor number, not its index. */
    public static String gpu(Gpu gpu) {
        return "gpu-" + gpu.minor();
    }

    /**
     * {@code gpu-<parent minor>-mig-<profile>-<profile id>-<placement start>}, the profile lower-cased without dots and
     * with anything else outside {@code [a-z0-9-]} turned into {@code -} ({@code 1g.10gb+me} → {@code 1g10gb-me}), as
     * NVIDIA's driver names MIG devices since v25.12: the GPU instance's profile id and first memory slice identify it
     * on its GPU. A compute instance smaller than its GPU instance ({@code 1c.2g.20gb}, two of them in one
     * {@code 2g.20gb} GPU instance) gets its compute instance id appended, {@code -<ci id>}, since NVIDIA's name would
     * be the same for both (NVIDIA's driver names none: its enumeration fails on such a node). Such a name can never
     * equal a whole-instance one: its profile starts {@code <n>c}, a whole instance's {@code <n>g}.
     */
    public static String mig(MigInstance mig) {
        String profile = mig.profile().replace(".", "").toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-")
                .replaceAll("^-+|-+$", "");
        String name = "gpu-" + mig.parentMinor() + "-mig-" + profile + "-" + mig.details().profileId() + "-"
                + mig.details().placementStart();
        return mig.spansGpuInstance() ? name : name + "-" + mig.computeInstanceId();
    }

    /** Why {@code name} cannot name a device in a ResourceSlice (a DNS label of at most 63 characters); empty when it can. */
    public static java.util.Optional<String> nameProblem(String name) {
        if (name.length() > 63) {
            return java.util.Optional.of("its name " + name + " is longer than 63 characters");
        }
        if (!name.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
            return java.util.Optional.of("its name " + name + " is not a DNS label");
        }
        return java.util.Optional.empty();
    }

    /** The CDI device name a claim's device gets: {@code <claim UID>-<device name>}. */
    public static String cdiDevice(String claimUid, String deviceName) {
        return claimUid + "-" + deviceName;
    }

    /** The fully-qualified CDI name the kubelet hands the runtime: {@code k8s.gpu.nvidia.com/claim=<uid>-<device>}. */
    public static String cdiDeviceId(String claimUid, String deviceName) {
        return CDI_KIND + "=" + cdiDevice(claimUid, deviceName);
    }
}
