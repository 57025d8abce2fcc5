package dev.kgpu.plugin.app;

import org.eclipse.microprofile.config.ConfigProvider;

import java.util.function.Function;

/**
 * The environment the configuration is read from: the process environment, and (for tests and
 * {@code quarkus:dev}) Quarkus configuration properties with the same names, e.g.
 * {@code %test.KUBELET_SOCKET=...}. A variable set to the empty string stays empty.
 */
final class PluginEnvironment {

    private PluginEnvironment() {
    }

    static Function<String, String> get() {
        return name -> {
            String value = System.getenv(name);
            if (value != null) {
                return value;
            }
            return ConfigProvider.getConfig().getConfigValue(name).getRawValue();
        };
    }
}
