package dev.kgpu.exporter;

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
 *   <li>start: {@link #run} hands those settings to {@link Exporter#start}, which opens NVML, collects once
 *       and starts the supervisor thread that collects at every interval;</li>
 *   <li>wait for SIGTERM or SIGINT;</li>
 *   <li>stop: {@link Exporter#stop} stops the supervisor and closes the kubelet client and NVML.</li>
 * </ol>
 */
@QuarkusMain
public final class ExporterMain implements QuarkusApplication {

    /** Read in {@link #main}; Quarkus then creates this class as a bean, which finds them here. */
    private static volatile ExporterConfig settings;

    @Inject
    Exporter exporter;

    public static void main(String... args) {
        switch (load(args, ConfigLoader::processEnvironment)) {
            case Startup.Exit<ExporterConfig> exit ->
                    ApplicationLifecycleManager.getDefaultExitCodeHandler().accept(exit.print(System.out, System.err), null);
            case Startup.Run<ExporterConfig>(ExporterConfig read) -> {
                settings = read;
                HttpServerSettings.apply(read);
                Quarkus.run(ExporterMain.class, args);
            }
        }
    }

    /** Reads every flag and variable and the counters file: the settings to run with, or the line to end with. */
    public static Startup<ExporterConfig> load(String[] args, Function<String, String> environment) {
        return Startup.load(ExporterConfig.NAME, () -> ExporterConfig.load(args, environment));
    }

    @Override
    public int run(String... args) {
        exporter.start(settings);
        try {
            Quarkus.waitForExit();
        } finally {
            exporter.stop();
        }
        return 0;
    }
}
