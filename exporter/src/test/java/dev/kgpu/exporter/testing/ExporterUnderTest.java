package dev.kgpu.exporter.testing;

import dev.kgpu.exporter.app.Exporter;
import dev.kgpu.exporter.config.ExporterConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.util.HashMap;
import java.util.Map;

/**
 * Starts the exporter in {@code @QuarkusTest} runs, which start Quarkus without {@code ExporterMain}: the
 * settings are read once, as the entry point reads them, from the test's environment (the mock NVML's
 * {@code KGPU_NVML_LIBRARY}) plus a one-second interval and a fixed node name.
 */
@ApplicationScoped
public class ExporterUnderTest {

    /** What the tests expect besides the process environment. */
    public static final Map<String, String> SETTINGS = Map.of("DCGM_EXPORTER_INTERVAL", "1000", "NODE_NAME", "test-node");

    void start(@Observes StartupEvent event, Exporter exporter) {
        Map<String, String> environment = new HashMap<>(System.getenv());
        environment.putAll(SETTINGS);
        exporter.start(ExporterConfig.load(new String[0], environment::get));
    }

    void stop(@Observes ShutdownEvent event, Exporter exporter) {
        exporter.stop();
    }
}
