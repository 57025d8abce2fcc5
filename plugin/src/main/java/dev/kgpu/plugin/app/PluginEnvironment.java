package dev.kgpu.plugin.app;

import org.eclipse.microprofile.config.ConfigProvider;

import java.util.function.Function;

/**
 * The environment the settings are read from: the process environment, then Quarkus configuration
 * properties with the same names (system properties, e.g. {@code -DKUBELET_SOCKET=...} from a test, and
 * {@code application.properties}, e.g. {@code %dev.KUBELET_SOCKET=...}). A variable set to the empty string
 * stays empty.
 */
public final class PluginEnvironment {

    private PluginEnvironment() {
    }

    public static Function<String, String> get() {
        return name -> {
            String value = System.getenv(name);
            if (value != null) {
                return value;
            }
            return ConfigProvider.getConfig().getConfigValue(name).getRawValue();
        };
    }
}
