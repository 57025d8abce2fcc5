package dev.kgpu.plugin.mps;

import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.v1.Config;
import dev.kgpu.plugin.node.NodeSettings;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the MPS control daemon agent runs with, read as NVIDIA's {@code mps-control-daemon} reads it: the device
 * plugin's flags, variables and config file v1 ({@code --config-file}/{@code CONFIG_FILE},
 * {@code --mig-strategy}/{@code MIG_STRATEGY}, {@code sharing.mps}, {@code renameByDefault}), through the plugin's own
 * loader (the application's wiring loads them), so the daemon shares exactly the resources the plugin advertises;
 * plus the node's NVML settings and kgpu's MPS settings. Immutable.
 *
 * @param node                 NVML, the proc root and the check interval
 * @param config               NVIDIA's effective config v1, which the device plugin's resources are planned from (the
 *                             MPS-shared ones get a daemon each)
 * @param honourSharingDevices {@code KGPU_HONOUR_SHARING_DEVICES}, which changes that plan as it changes the plugin's
 * @param mps         where the daemons live and the control program
 * @param configFile  the config file read, whose changes restart the daemons as SIGHUP does
 * @param configHash  the SHA-256 of that file's bytes when it was read; empty without a file
 * @param description the effective configuration as JSON, logged after "Running with config:"
 * @param warnings    accepted but suspicious settings, logged at WARN
 */
public record MpsDaemonSettings(NodeSettings node, Config config, boolean honourSharingDevices, MpsSettings mps,
                                Optional<Path> configFile, String configHash, String description,
                                List<ConfigWarning> warnings) {

    public MpsDaemonSettings {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(mps, "mps");
        Objects.requireNonNull(configFile, "configFile");
        Objects.requireNonNull(configHash, "configHash");
        Objects.requireNonNull(description, "description");
        warnings = List.copyOf(warnings);
    }

    /** The SHA-256 of {@code file}'s bytes now, hex; empty when it cannot be read (it changes, or is gone). */
    public static String hash(Path file) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (IOException e) {
            return "";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
