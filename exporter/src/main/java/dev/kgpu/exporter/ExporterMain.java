package dev.kgpu.exporter;

import dev.kgpu.agent.Launch;
import dev.kgpu.agent.Startup;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.exporter.app.Exporter;
import dev.kgpu.exporter.config.ExporterConfig;
import dev.kgpu.exporter.http.HttpServerSettings;
import io.quarkus.runtime.ApplicationLifecycleManager;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;

import java.util.function.Function;

/**
 * The exporter's one entry point. Its lifecycle:
 * <ol>
 *   <li>load: {@link #main} reads every flag and variable and the counters file once, before Quarkus
 *       starts, because {@code DCGM_EXPORTER_LISTEN} decides Quarkus' HTTP host and port; a bad setting
 *       stops the process here with one line and exit status 1;</li>
 *   <li>start: {@link #run} hands those settings to {@link Exporter#run}, which opens NVML, collects once
 *       and starts the supervisor thread that collects at every interval;</li>
 *   <li>wait for SIGTERM or SIGINT;</li>
 *   <li>stop: Quarkus' shutdown stops the supervisor and closes the kubelet client and NVML
 *       ({@link Exporter#stop}).</li>
 * </ol>
 */
@QuarkusMain
public final class ExporterMain implements QuarkusApplication {

    /** Reads the settings before Quarkus starts and hands them to {@link #run} and the HTTP server. */
    static final Launch<ExporterConfig> LAUNCH = new Launch<>(ExporterConfig.NAME, ExporterConfig.class,
            ExporterConfig::load);

    @Inject
    Exporter exporter;

    public static void main(String... args) {
        LAUNCH.main(args, status -> ApplicationLifecycleManager.getDefaultExitCodeHandler().accept(status, null),
                config -> {
                    HttpServerSettings.apply(config);
                    Quarkus.run(ExporterMain.class, args);
                });
    }

    /** Reads every flag and variable and the counters file: the settings to run with, or the line to end with. */
    public static Startup<ExporterConfig> load(String[] args, Function<String, String> environment) {
        return LAUNCH.load(args, environment);
    }

    @Override
    public int run(String... args) {
        return LAUNCH.run(args, ConfigLoader::processEnvironment, exporter::run); // dev mode calls run without main
    }
}
