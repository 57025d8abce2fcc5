package dev.kgpu.plugin;

import dev.kgpu.plugin.config.DevicePluginConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which agent the plugin's image runs. NVIDIA's image holds two binaries, {@code nvidia-device-plugin} and
 * {@code mps-control-daemon}; kgpu's holds one entry point that is either, chosen as NVIDIA's chart starts them:
 * <ol>
 *   <li>the program's own name ({@code argv[0]} in {@code /proc/self/cmdline}) is {@code mps-control-daemon}, as for a
 *       native executable installed under that name;</li>
 *   <li>the first argument is {@code mps-control-daemon} (the chart's {@code args}: the images have no shell, and their
 *       entry point is the JVM), the rest are NVIDIA's flags ({@code mount-shm} its subcommand);</li>
 *   <li>{@code KGPU_COMPONENT} is {@code mps-control-daemon}, for a pod spec that cannot change the arguments.</li>
 * </ol>
 * Anything else is the plugin.
 */
enum Component {
    PLUGIN, MPS_CONTROL_DAEMON;

    /** kgpu: the agent to run, when neither the program's name nor its first argument says. */
    static final String VARIABLE = "KGPU_COMPONENT";

    /** The agent, the arguments it reads, or the one line about a bad {@value #VARIABLE}. */
    record Selected(Component component, String[] args, Optional<String> problem) {
    }

    static Selected select(String[] args, Function<String, String> environment, Optional<String> programName) {
        String name = DevicePluginConfig.MPS_CONTROL_DAEMON;
        if (programName.map(p -> Path.of(p).getFileName().toString()).filter(name::equals).isPresent()) {
            return new Selected(MPS_CONTROL_DAEMON, args, Optional.empty());
        }
        if (args.length > 0 && args[0].equals(name)) {
            return new Selected(MPS_CONTROL_DAEMON, Arrays.copyOfRange(args, 1, args.length), Optional.empty());
        }
        String chosen = Optional.ofNullable(environment.apply(VARIABLE)).map(String::strip).orElse("");
        return switch (chosen) {
            case "", "plugin", "nvidia-device-plugin" -> new Selected(PLUGIN, args, Optional.empty());
            case "mps-control-daemon" -> new Selected(MPS_CONTROL_DAEMON, args, Optional.empty());
            default -> new Selected(PLUGIN, args, Optional.of("invalid configuration: " + VARIABLE + " was '" + chosen
                    + "' but it must be plugin or " + name));
        };
    }

    /** This process's {@code argv[0]}, from {@code /proc/self/cmdline}; empty where there is none. */
    static Optional<String> programName() {
        try {
            byte[] cmdline = Files.readAllBytes(Path.of("/proc/self/cmdline"));
            int end = 0;
            while (end < cmdline.length && cmdline[end] != 0) {
                end++;
            }
            return end == 0 ? Optional.empty() : Optional.of(new String(cmdline, 0, end, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
