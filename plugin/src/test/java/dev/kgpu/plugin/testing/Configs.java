package dev.kgpu.plugin.testing;

import dev.kgpu.plugin.config.DevicePluginConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Loads the plugin's configuration as the entry point does, from a config file written by a test. */
public final class Configs {

    private Configs() {
    }

    /** Writes {@code yaml} into {@code dir}/config.yaml and loads it with {@code env} (and no flags but --config-file). */
    public static DevicePluginConfig load(Path dir, String yaml, Map<String, String> env, String... flags) {
        try {
            Path file = dir.resolve("config-" + System.nanoTime() + ".yaml");
            Files.writeString(file, yaml);
            List<String> args = new ArrayList<>(List.of(flags));
            args.add("--config-file=" + file);
            return DevicePluginConfig.load(args.toArray(String[]::new), new HashMap<>(env)::get);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static DevicePluginConfig load(Path dir, String yaml) {
        return load(dir, yaml, Map.of());
    }
}
