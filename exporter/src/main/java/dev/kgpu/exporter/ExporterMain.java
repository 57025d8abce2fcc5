package dev.kgpu.exporter;

import dev.kgpu.exporter.config.ConfigException;
import dev.kgpu.exporter.config.ExporterConfig;
import dev.kgpu.exporter.config.ExporterConfigLoader;
import dev.kgpu.exporter.counters.CountersException;
import dev.kgpu.exporter.counters.CountersFile;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * The exporter's entry point. Its lifecycle:
 * <ol>
 *   <li>{@link #main}: read the flags and environment and the counters file; a bad value stops the process
 *       here with one line per problem and exit code 1; {@code DCGM_EXPORTER_LISTEN} becomes Quarkus' HTTP
 *       host and port.</li>
 *   <li>Quarkus starts; {@link dev.kgpu.exporter.app.Exporter} opens NVML, collects once and starts the
 *       supervisor thread, which collects at every interval.</li>
 *   <li>{@link #run} waits for SIGTERM/SIGINT; shutdown stops the supervisor and closes NVML.</li>
 * </ol>
 */
@QuarkusMain
public final class ExporterMain implements QuarkusApplication {

    public static void main(String... args) {
        try {
            ExporterConfig config = ExporterConfigLoader.forProcess().load(args);
            config.collectors().builtIn().ifPresentOrElse(CountersFile::readBuiltIn,
                    () -> CountersFile.read(config.collectors().path()));
            System.setProperty("quarkus.http.host", config.listenHost().isEmpty() ? "0.0.0.0" : config.listenHost());
            System.setProperty("quarkus.http.port", Integer.toString(config.listenPort()));
        } catch (ConfigException | CountersException e) {
            System.err.println("kgpu-exporter: " + e.getMessage().replace("\n", "\nkgpu-exporter: "));
            System.exit(1);
        }
        Quarkus.run(ExporterMain.class, args);
    }

    @Override
    public int run(String... args) {
        Quarkus.waitForExit();
        return 0;
    }
}
