package dev.kgpu.plugin.dra;

import dev.kgpu.cdi.NvidiaCdiGenerator;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How the DRA driver runs, from NVIDIA's DRA driver flags ({@code --node-name}, {@code --cdi-root},
 * {@code --kubelet-registrar-directory-path}, {@code --kubelet-plugins-directory-path}) and the driver roots and hook
 * path the device plugin reads too. Immutable.
 *
 * @param nodeName           this node ({@code NODE_NAME}): the pool's name and the slices' {@code spec.nodeName}
 * @param cdiRoot            where each claim's CDI spec is written ({@code CDI_ROOT})
 * @param registrarDirectory the kubelet's plugin-watcher folder, {@code /var/lib/kubelet/plugins_registry}
 * @param pluginsDirectory   the kubelet's plugins folder, {@code /var/lib/kubelet/plugins}; the driver's own folder is
 *                           {@code <it>/gpu.nvidia.com}
 * @param procRoot           the root {@code proc/sys/kernel/random/boot_id} is read under ({@code /} on a node)
 * @param cdi                the CDI generator's roots and hook path
 */
public record DraSettings(String nodeName, Path cdiRoot, Path registrarDirectory, Path pluginsDirectory, Path procRoot,
                          NvidiaCdiGenerator.Options cdi) {

    public static final Path DEFAULT_CDI_ROOT = Path.of("/etc/cdi");
    public static final Path DEFAULT_REGISTRAR_DIRECTORY = Path.of("/var/lib/kubelet/plugins_registry");
    public static final Path DEFAULT_PLUGINS_DIRECTORY = Path.of("/var/lib/kubelet/plugins");

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
