package dev.kgpu.validator;

import dev.kgpu.agent.Launch;
import dev.kgpu.agent.Startup;
import dev.kgpu.agent.StopSignal;
import dev.kgpu.config.v1.ConfigJson;
import dev.kgpu.validator.config.Mode;
import dev.kgpu.validator.config.ValidatorSettings;
import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.Sleeper;
import dev.kgpu.validator.core.ValidationPass;
import dev.kgpu.validator.core.Verdict;
import io.quarkus.runtime.ApplicationLifecycleManager;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;

import java.io.PrintStream;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * The validator's one entry point. Reads the settings before Quarkus starts (a bad one: one line and nothing
 * else); in one-shot mode validates once without opening any port, prints one verdict line per component and
 * exits 0 only when all passed (an init container); in daemon mode re-validates on an interval until SIGTERM,
 * then removes its {@code *-ready} files.
 *
 * <p>Exit codes: 0 all passed (or {@code --help}), 1 a component failed, a setting is wrong (one line on
 * stderr naming each bad setting, as every kgpu agent prints it) or the daemon stopped on an unexpected
 * error. Only this class decides.
 */
@QuarkusMain
public class ValidatorMain implements QuarkusApplication {

    private static final System.Logger LOG = System.getLogger(ValidatorMain.class.getName());

    /** Reads the settings before Quarkus starts and hands them to {@link #run}. */
    static final Launch<ValidatorSettings> LAUNCH = new Launch<>(ValidatorSettings.NAME, ValidatorSettings.class,
            ValidatorSettings::load);

    /**
     * The image's entry point: {@code wait-for FILE} and {@code remove-ready-files FOLDER} (the chart's gate and
     * preStop, {@link StatusFileCommands}) run without starting Quarkus; anything else reads the settings and
     * starts the validator.
     */
    public static void main(String... args) {
        OptionalInt status = StatusFileCommands.run(List.of(args), Sleeper.system(), System.out, System.err);
        if (status.isPresent()) {
            end(status.getAsInt());
            return;
        }
        LAUNCH.main(args, ValidatorMain::end, settings -> {
            if (settings.mode() == Mode.ONESHOT && !settings.components().contains(Component.METRICS)) {
                System.setProperty("quarkus.http.host-enabled", "false"); // an init container: nothing probes it
            }
            Quarkus.run(ValidatorMain.class, args);
        });
    }

    /**
     * Ends the process with {@code status} without starting Quarkus: through Quarkus' exit handler, which is
     * {@code System.exit} in production and records the status under {@code @QuarkusMainTest}.
     */
    private static void end(int status) {
        ApplicationLifecycleManager.getDefaultExitCodeHandler().accept(status, null);
    }

    /** Reads every setting once: the settings, or the one line and exit status to end with. */
    public static Startup<ValidatorSettings> load(String[] args, Function<String, String> environment) {
        return LAUNCH.load(args, environment);
    }

    @Inject
    ValidatorWiring wiring;

    @Inject
    ValidationState state;

    @Override
    public int run(String... args) {
        // dev mode and @QuarkusMainTest call run without main: the settings are read then from Quarkus' configuration too
        return LAUNCH.run(args, ValidatorMain::setting, launched -> validate(launched.settings()));
    }

    private int validate(ValidatorSettings settings) {
        PrintStream out = System.out;
        settings.warnings().forEach(warning -> LOG.log(System.Logger.Level.WARNING, warning.toString()));
        LOG.log(System.Logger.Level.INFO, "Running with config:\n{0}", ConfigJson.toJson(settings.describe()));
        if (settings.components().contains(Component.METRICS)) {
            try (NodeStatusExporter exporter = NodeStatusExporter.start(wiring.nodeStatusMetrics(settings),
                    settings.metricsPort(), NodeStatusExporter.Periods.NVIDIA)) {
                StopSignal.relayTo(Quarkus::asyncExit); // SIGTERM: stop and exit 0, not the JVM's 143
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
            List<Verdict> verdicts;
            try {
                verdicts = pass.run(ValidationPass.FilePolicy.REMOVE_FIRST);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            }
            state.record(verdicts);
            verdicts.forEach(verdict -> out.println(verdict.line()));
            return verdicts.stream().allMatch(Verdict::passed) ? 0 : 1;
        }
        // SIGTERM's shutdown stops it and removes the *-ready files
        return wiring.daemon(pass, statusFiles, state, settings.revalidateInterval());
    }

    /** Settings come from MicroProfile Config: environment variables, system properties, application.properties. */
    private static String setting(String name) {
        return ConfigProvider.getConfig().getOptionalValue(name, String.class).orElse(null);
    }
}
