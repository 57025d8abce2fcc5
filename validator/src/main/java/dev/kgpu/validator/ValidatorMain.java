package dev.kgpu.validator;

import dev.kgpu.config.ConfigException;
import dev.kgpu.config.v1.ConfigJson;
import dev.kgpu.validator.config.Mode;
import dev.kgpu.validator.config.ValidatorSettings;
import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.Sleeper;
import dev.kgpu.validator.core.ValidationPass;
import dev.kgpu.validator.core.Verdict;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;

import java.io.PrintStream;
import java.util.List;
import java.util.OptionalInt;

/**
 * The validator's one entry point. Reads the settings; in one-shot mode validates once, prints one verdict
 * line per component and exits 0 only when all passed (an init container); in daemon mode re-validates on
 * an interval until SIGTERM, then removes its {@code *-ready} files.
 *
 * <p>Exit codes: 0 all passed (or {@code --help}), 1 a component failed or a setting is wrong (one line on
 * stderr naming each bad setting, as every kgpu agent prints it). Only this class decides.
 */
@QuarkusMain
public class ValidatorMain implements QuarkusApplication {

    private static final System.Logger LOG = System.getLogger(ValidatorMain.class.getName());

    /**
     * The image's entry point: {@code wait-for FILE} and {@code remove-ready-files FOLDER} (the chart's gate and
     * preStop, {@link StatusFileCommands}) run without starting Quarkus; anything else starts the validator.
     */
    public static void main(String... args) {
        OptionalInt status = StatusFileCommands.run(List.of(args), Sleeper.system(), System.out, System.err);
        if (status.isPresent()) {
            System.exit(status.getAsInt());
        }
        Quarkus.run(ValidatorMain.class, args);
    }

    @Inject
    ValidatorWiring wiring;

    @Inject
    ValidationState state;

    @Override
    public int run(String... args) throws Exception {
        PrintStream out = System.out;
        ValidatorSettings settings;
        try {
            settings = ValidatorSettings.load(args, ValidatorMain::setting);
        } catch (ConfigException e) {
            return e.report(ValidatorSettings.NAME);
        }
        settings.warnings().forEach(warning -> LOG.log(System.Logger.Level.WARNING, warning::toString));
        LOG.log(System.Logger.Level.INFO, () -> "Running with config:\n" + ConfigJson.toJson(settings.describe()));
        if (settings.components().contains(Component.METRICS)) {
            try (NodeStatusExporter exporter = NodeStatusExporter.start(wiring.nodeStatusMetrics(settings),
                    settings.metricsPort(), NodeStatusExporter.Periods.NVIDIA)) {
                Quarkus.waitForExit();
            } catch (java.io.UncheckedIOException e) {
                System.err.println(ValidatorSettings.NAME + ": " + e.getMessage());
                return 1;
            }
            return 0;
        }
        var statusFiles = wiring.statusFiles(settings);
        if (settings.cleanupAll()) {
            try {
                statusFiles.removeAllReadyFiles();
            } catch (java.io.UncheckedIOException e) {
                System.err.println("kgpu-validator: CLEANUP_ALL: " + e.getMessage());
                return 1;
            }
        }
        ValidationPass pass = wiring.pass(settings);
        if (settings.mode() == Mode.ONESHOT) {
            List<Verdict> verdicts = pass.run(ValidationPass.FilePolicy.REMOVE_FIRST);
            state.record(verdicts);
            verdicts.forEach(verdict -> out.println(verdict.line()));
            return verdicts.stream().allMatch(Verdict::passed) ? 0 : 1;
        }
        try (DaemonSupervisor supervisor = new DaemonSupervisor(pass, statusFiles, state,
                settings.revalidateInterval())) {
            supervisor.start();
            Quarkus.waitForExit();
        }
        return 0;
    }

    /** Settings come from MicroProfile Config: environment variables, system properties, application.properties. */
    private static String setting(String name) {
        return ConfigProvider.getConfig().getOptionalValue(name, String.class).orElse(null);
    }
}
