package dev.kgpu.plugin.mps;

import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.plugin.node.NodeSettings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Where the MPS control daemons are and how to talk to them, as both sides read it: the MPS control daemon agent, which
 * starts them, and the device plugin, which waits for them before it advertises an MPS-shared resource. kgpu's own
 * settings ({@link #SETTINGS}); NVIDIA's agents fix the folder at {@code /mps} and find {@code nvidia-cuda-mps-control}
 * on {@code PATH}, which are the defaults. Immutable.
 *
 * @param root          the MPS root as this container sees it (the host's {@code MPS_ROOT}, NVIDIA's chart's
 *                      {@code /run/nvidia/mps}, mounted at {@code /mps})
 * @param control       the control program: a name looked up on {@code PATH}, or an absolute path
 * @param checkInterval the time between checks of a running daemon ({@code KGPU_HEALTH_CHECK_INTERVAL})
 */
public record MpsSettings(Path root, String control, Duration checkInterval) {

    /** NVIDIA's container folder of the MPS root ({@code cmd/mps-control-daemon/mps/root.go}). */
    public static final String DEFAULT_ROOT = "/mps";

    /** kgpu: the MPS root in this container. */
    static final Setting<String> CONTAINER_ROOT = Setting.of(List.of(), List.of("KGPU_MPS_CONTAINER_ROOT"),
            ValueType.absolutePath(), DEFAULT_ROOT, "kgpu: where the MPS root (MPS_ROOT on the host) is in this container;"
                    + " NVIDIA's agents fix it at /mps (a simulated node points it at its own folder)");
    /** kgpu: the control program. */
    static final Setting<String> CONTROL = Setting.of(List.of(), List.of("KGPU_MPS_CONTROL"), ValueType.string(),
            ControlProgram.NAME, "kgpu: the MPS control program, a name looked up on PATH or an absolute path (default"
                    + " nvidia-cuda-mps-control, which the NVIDIA container toolkit mounts with the compute capability)");

    /** kgpu's MPS settings, read by the plugin and by the MPS control daemon. */
    public static final List<Setting<?>> SETTINGS = List.of(CONTAINER_ROOT, CONTROL);

    public MpsSettings {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(control, "control");
        Objects.requireNonNull(checkInterval, "checkInterval");
        if (control.isBlank()) {
            throw new IllegalArgumentException("control was '' but it must name the MPS control program");
        }
    }

    /** The MPS root in this container ({@code KGPU_MPS_CONTAINER_ROOT}), for the DRA driver, which runs no daemon. */
    public static Path containerRoot(ConfigLoader.Resolved resolved) {
        return Path.of(resolved.get(CONTAINER_ROOT));
    }

    /** The settings from {@link #SETTINGS} and the node's check interval, resolved with them. */
    public static MpsSettings of(ConfigLoader.Resolved resolved) {
        String control = resolved.get(CONTROL).strip();
        if (control.isEmpty()) {
            resolved.fail(CONTROL, "", "must name the MPS control program (default " + ControlProgram.NAME + ")");
            control = ControlProgram.NAME;
        }
        return new MpsSettings(Path.of(resolved.get(CONTAINER_ROOT)), control,
                resolved.get(NodeSettings.CHECK_INTERVAL).orElse(NodeSettings.DEFAULT_CHECK_INTERVAL));
    }

    /** The folders of the daemons under {@link #root()}. */
    public MpsPaths paths() {
        return new MpsPaths(root);
    }
}
