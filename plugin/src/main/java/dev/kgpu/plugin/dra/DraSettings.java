package dev.kgpu.plugin.dra;

import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.plugin.config.DevicePluginConfig;

import dev.kgpu.plugin.mps.MpsSettings;

import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How the DRA driver runs, from NVIDIA's DRA driver flags ({@code --node-name}, {@code --cdi-root},
 * {@code --kubelet-registrar-directory-path}, {@code --kubelet-plugins-directory-path}; {@link #SETTINGS}) and the
 * driver roots and hook path the device plugin reads too. All come from flags and variables but the CDI generator's,
 * which a reload leaves as they were at start. Immutable.
 *
 * @param nodeName           this node ({@code NODE_NAME}): the pool's name and the slices' {@code spec.nodeName}
 * @param cdiRoot            where each claim's CDI spec is written ({@code CDI_ROOT})
 * @param registrarDirectory the kubelet's plugin-watcher folder, {@code /var/lib/kubelet/plugins_registry}
 * @param pluginsDirectory   the kubelet's plugins folder, {@code /var/lib/kubelet/plugins}; the driver's own folder is
 *                           {@code <it>/gpu.nvidia.com}
 * @param procRoot           the root {@code proc/sys/kernel/random/boot_id} is read under ({@code /} on a node)
 * @param cdi                the CDI generator's roots and hook path
 * @param resyncPeriod       how often the node's ResourceSlices are compared with what the driver last wrote, even when
 *                           nothing told it they changed ({@code KGPU_DRA_RESYNC_PERIOD}, at most 30 s)
 * @param podResourcesSocket the kubelet's PodResources API ({@code KGPU_POD_RESOURCES_SOCKET}), where the driver learns
 *                           which GPUs the kubelet's device manager allocated
 * @param mpsRoot            the MPS root in this container ({@code KGPU_MPS_CONTAINER_ROOT}, default {@code /mps}), where
 *                           the driver sees which GPUs an MPS control daemon holds before it gives a time-sliced claim
 *                           its GPU, and where it runs the MPS control daemon of each claim that asks for {@code MPS}
 * @param mpsHostRoot        the same folder on the host ({@code MPS_ROOT}, {@code --mps-root}, {@code flags.mpsRoot}),
 *                           which an MPS claim's CDI mounts name; empty when unset (MPS claims are refused)
 * @param mpsControl         the MPS control program ({@code KGPU_MPS_CONTROL}): a name looked up on {@code PATH}, or an
 *                           absolute path
 * @param mpsCheckInterval   how often each MPS claim's control daemon is checked ({@code KGPU_HEALTH_CHECK_INTERVAL}),
 *                           and started again when it stopped
 * @param deviceManagerCheckpoint the kubelet's device-manager checkpoint ({@code KGPU_DEVICE_MANAGER_CHECKPOINT}), read
 *                           instead of the PodResources API while that cannot be reached
 * @param devicePluginBeside kgpu's device plugin runs too ({@code KGPU_KUBELET_APIS} lists both): then a node that can
 *                           read neither the PodResources API nor the checkpoint is not ready
 */
public record DraSettings(String nodeName, Path cdiRoot, Path registrarDirectory, Path pluginsDirectory, Path procRoot,
                          NvidiaCdiGenerator.Options cdi, Duration resyncPeriod, Path podResourcesSocket, Path mpsRoot,
                          Optional<Path> mpsHostRoot, String mpsControl, Duration mpsCheckInterval,
                          Path deviceManagerCheckpoint, boolean devicePluginBeside) {

    public static final Path DEFAULT_CDI_ROOT = Path.of("/etc/cdi");
    public static final Path DEFAULT_REGISTRAR_DIRECTORY = Path.of("/var/lib/kubelet/plugins_registry");
    public static final Path DEFAULT_PLUGINS_DIRECTORY = Path.of("/var/lib/kubelet/plugins");

    /** NVIDIA's DRA driver: this node's name. */
    static final Setting<String> NODE_NAME = Setting.of(List.of("node-name"), List.of("NODE_NAME"),
            ValueType.kubernetesName(), "", "the node's name: the DRA driver's pool and its ResourceSlices' node; required with dra");
    /** NVIDIA's DRA driver: where the per-claim CDI specs go. */
    static final Setting<String> CDI_ROOT = Setting.of(List.of("cdi-root"), List.of("CDI_ROOT"), ValueType.absolutePath(),
            DEFAULT_CDI_ROOT.toString(), "the folder the DRA driver writes each claim's CDI spec to");
    /** NVIDIA's DRA driver: the kubelet's plugin-watcher folder. */
    static final Setting<String> REGISTRAR_DIRECTORY = Setting.of(List.of("kubelet-registrar-directory-path"),
            List.of("KUBELET_REGISTRAR_DIRECTORY_PATH"), ValueType.absolutePath(), DEFAULT_REGISTRAR_DIRECTORY.toString(),
            "the kubelet's plugin registration folder, where the DRA driver's registration socket goes");
    /** NVIDIA's DRA driver: the kubelet's plugins folder. */
    static final Setting<String> PLUGINS_DIRECTORY = Setting.of(List.of("kubelet-plugins-directory-path"),
            List.of("KUBELET_PLUGINS_DIRECTORY_PATH"), ValueType.absolutePath(), DEFAULT_PLUGINS_DIRECTORY.toString(),
            "the kubelet's plugins folder; the DRA driver's socket and checkpoint go to <it>/gpu.nvidia.com");

    /** kgpu: the longest the node's slices may differ from what the driver wrote before it notices without a watch. */
    static final Setting<Duration> RESYNC_PERIOD = Setting.of(List.of(), List.of("KGPU_DRA_RESYNC_PERIOD"),
            ValueType.duration(ChronoUnit.MILLIS, 100, 30_000), Duration.ofSeconds(30),
            "kgpu: milliseconds between comparisons of the node's ResourceSlices with what the DRA driver wrote");

    /** kgpu: the kubelet's PodResources socket. */
    static final Setting<String> POD_RESOURCES_SOCKET = Setting.of(List.of(), List.of("KGPU_POD_RESOURCES_SOCKET"),
            ValueType.absolutePath(), "/var/lib/kubelet/pod-resources/kubelet.sock",
            "kgpu: the kubelet's PodResources socket, where the DRA driver reads which GPUs the device manager allocated");

    /** kgpu: the kubelet's device-manager checkpoint, read while the PodResources API cannot be. */
    static final Setting<String> DEVICE_MANAGER_CHECKPOINT = Setting.of(List.of(), List.of("KGPU_DEVICE_MANAGER_CHECKPOINT"),
            ValueType.absolutePath(), "/var/lib/kubelet/device-plugins/" + KubeletDeviceCheckpoint.FILE_NAME,
            "kgpu: the kubelet's device-manager checkpoint, where the DRA driver reads which GPUs the device manager"
                    + " allocated while the PodResources socket cannot be reached");

    /** NVIDIA's DRA driver's settings, besides those it shares with the device plugin, and kgpu's own. */
    public static final List<Setting<?>> SETTINGS = List.of(NODE_NAME, CDI_ROOT, REGISTRAR_DIRECTORY, PLUGINS_DIRECTORY,
            RESYNC_PERIOD, POD_RESOURCES_SOCKET, DEVICE_MANAGER_CHECKPOINT);

    public DraSettings {
        Objects.requireNonNull(nodeName, "nodeName");
        if (nodeName.isEmpty()) {
            throw new IllegalArgumentException("nodeName was '' but it must name the node");
        }
        Objects.requireNonNull(cdiRoot, "cdiRoot");
        Objects.requireNonNull(registrarDirectory, "registrarDirectory");
        Objects.requireNonNull(pluginsDirectory, "pluginsDirectory");
        Objects.requireNonNull(procRoot, "procRoot");
        Objects.requireNonNull(cdi, "cdi");
        Objects.requireNonNull(resyncPeriod, "resyncPeriod");
        Objects.requireNonNull(podResourcesSocket, "podResourcesSocket");
        Objects.requireNonNull(mpsRoot, "mpsRoot");
        Objects.requireNonNull(mpsHostRoot, "mpsHostRoot");
        Objects.requireNonNull(mpsControl, "mpsControl");
        Objects.requireNonNull(mpsCheckInterval, "mpsCheckInterval");
        Objects.requireNonNull(deviceManagerCheckpoint, "deviceManagerCheckpoint");
        if (resyncPeriod.isNegative() || resyncPeriod.isZero()) {
            throw new IllegalArgumentException("resyncPeriod was " + resyncPeriod + " but it must be positive");
        }
    }

    /**
     * The DRA driver's settings from NVIDIA's configuration and {@link #SETTINGS}, resolved with them; empty when one is
     * missing or bad, which {@code resolved} then records.
     *
     * @param procRoot the node's {@code KGPU_PROC_ROOT}, where the boot id and the MIG capabilities are read
     * @param wantedBy what asks for the driver, e.g. {@code KGPU_KUBELET_APIS lists dra}, for the line a missing node name
     *                 gets
     * @param mps      the MPS settings: the MPS root in this container ({@code KGPU_MPS_CONTAINER_ROOT}) and the
     *                 control program
     * @param devicePluginBeside kgpu's device plugin runs too
     */
    public static Optional<DraSettings> of(DevicePluginConfig loaded, ConfigLoader.Resolved resolved, Path procRoot,
                                           String wantedBy, MpsSettings mps, boolean devicePluginBeside) {
        String nodeName = resolved.get(NODE_NAME);
        if (nodeName.isEmpty()) {
            resolved.fail(NODE_NAME, "", "must name this node when " + wantedBy
                    + " (the DRA driver's pool and its ResourceSlices' node)");
            return Optional.empty();
        }
        return Optional.of(new DraSettings(nodeName, Path.of(resolved.get(CDI_ROOT)), Path.of(resolved.get(REGISTRAR_DIRECTORY)),
                Path.of(resolved.get(PLUGINS_DIRECTORY)), procRoot, loaded.cdiGenerator(procRoot),
                resolved.get(RESYNC_PERIOD), Path.of(resolved.get(POD_RESOURCES_SOCKET)), mps.root(),
                loaded.config().flags().mpsRoot().filter(r -> !r.isBlank()).map(Path::of), mps.control(),
                mps.checkInterval(), Path.of(resolved.get(DEVICE_MANAGER_CHECKPOINT)), devicePluginBeside));
    }

    /** The driver's own folder, {@code <plugins>/gpu.nvidia.com}, shared with no other plugin. */
    public Path driverDirectory() {
        return pluginsDirectory.resolve(DraNames.DRIVER);
    }

    /** The DRA service's socket, {@code <plugins>/gpu.nvidia.com/dra.sock}. */
    public Path serviceSocket() {
        return driverDirectory().resolve(DraNames.SERVICE_SOCKET);
    }

    /** The registration socket the kubelet's plugin watcher finds, {@code <registrar>/gpu.nvidia.com-reg.sock}. */
    public Path registrationSocket() {
        return registrarDirectory.resolve(DraNames.REGISTRATION_SOCKET);
    }

    /** The checkpoint of prepared claims, {@code <plugins>/gpu.nvidia.com/kgpu-checkpoint.json}. */
    public Path checkpointFile() {
        return driverDirectory().resolve(DraNames.CHECKPOINT_FILE);
    }

    /** The kernel's boot id, which tells a checkpoint of an earlier boot. */
    public Path bootIdFile() {
        return procRoot.resolve("proc/sys/kernel/random/boot_id");
    }
}
