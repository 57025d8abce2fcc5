package dev.kgpu.agent;

import dev.kgpu.agent.settings.ConfigLoader;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * The one hand-off of an agent's settings from its entry point into its application framework (Quarkus), without a
 * static mutable field. {@link #main} reads the settings before the framework starts (a bad one: one line and the
 * exit status, nothing else) and runs the framework inside a {@link ScopedValue} binding of what it read; the
 * framework starts its beans and calls the application's {@code run} on that same thread, where {@link #run} finds
 * the settings. Without {@code main} (Quarkus' dev mode, {@code @QuarkusMainTest}) nothing is bound and {@link #run}
 * reads them itself, from the environment it is given (Quarkus' configuration). An agent launched by {@code main} stops
 * on SIGTERM and exits with its own status: the {@link Supervisor} it starts on that thread installs the
 * {@link StopSignal} relay (see {@link #launchedByMain()}).
 *
 * <pre>{@code
 * @QuarkusMain
 * public class DiscoveryMain implements QuarkusApplication {
 *     static final Launch<FeatureDiscoveryConfig> LAUNCH = new Launch<>("kgpu-discovery", FeatureDiscoveryConfig.class,
 *             FeatureDiscoveryConfig::load);
 *     @Inject Discovery discovery;
 *
 *     public static void main(String... args) {
 *         LAUNCH.main(args, status -> ApplicationLifecycleManager.getDefaultExitCodeHandler().accept(status, null),
 *                 config -> Quarkus.run(DiscoveryMain.class, args));
 *     }
 *
 *     public int run(String... args) {
 *         return LAUNCH.run(args, ConfigLoader::processEnvironment, discovery::run);   // start, then await the exit
 *     }
 * }
 * }</pre>
 *
 * <p>Plain JDK ({@link ScopedValue}, final in Java 25), so the same code runs in a native executable. Immutable and
 * thread-safe; one per agent, in a {@code static final} field of its entry point.
 *
 * @param <S> the agent's settings record
 */
public final class Launch<S> {

    /** What the entry point read, bound while the framework runs on its thread. One process runs one agent. */
    private static final ScopedValue<Launched<?>> LAUNCHED = ScopedValue.newInstance();

    /** Reads an agent's settings from its command line and environment; throws a {@code ConfigException}. */
    @FunctionalInterface
    public interface Loader<S> {
        S load(String[] args, Function<String, String> environment);
    }

    /**
     * The settings the agent starts with, and how to read them again the same way (same command line, same
     * environment) for SIGHUP.
     */
    public record Launched<S>(S settings, Supplier<S> reload) {
        public Launched {
            Objects.requireNonNull(settings, "settings");
            Objects.requireNonNull(reload, "reload");
        }
    }

    private final String binary;
    private final Class<S> type;
    private final Loader<S> loader;

    /**
     * @param binary the agent, first on the line a bad setting prints: {@code kgpu-discovery}
     * @param type   the settings' class, which {@link #run} and {@link #bound} look for
     */
    public Launch(String binary, Class<S> type, Loader<S> loader) {
        this.binary = Objects.requireNonNull(binary, "binary");
        this.type = Objects.requireNonNull(type, "type");
        this.loader = Objects.requireNonNull(loader, "loader");
    }

    /** Reads every setting once: the settings, or the one line and exit status to end with. */
    public Startup<S> load(String[] args, Function<String, String> environment) {
        return Startup.load(binary, () -> loader.load(args, environment));
    }

    /**
     * The entry point: reads the settings from the process ({@link ConfigLoader#processEnvironment}); a bad one
     * (or {@code --help}) is printed and {@code exit} gets the status; otherwise {@code framework} runs (sets what
     * the framework needs before it starts, then starts it) with the settings bound for {@link #run}.
     */
    public void main(String[] args, IntConsumer exit, Consumer<S> framework) {
        Function<String, String> environment = ConfigLoader::processEnvironment;
        switch (load(args, environment)) {
            case Startup.Exit<S> end -> exit.accept(end.print(System.out, System.err));
            case Startup.Run<S>(S settings) -> ScopedValue.where(LAUNCHED, launched(settings, args, environment))
                    .run(() -> framework.accept(settings));
        }
    }

    /**
     * The application's run, on the thread {@link #main} bound the settings on: hands them to {@code agent} and
     * returns its exit status. When nothing is bound (no {@code main}: dev mode, {@code @QuarkusMainTest}) reads
     * them now from {@code environment}; a bad one is printed and its status returned.
     */
    public int run(String[] args, Function<String, String> environment, ToIntFunction<Launched<S>> agent) {
        Optional<Launched<S>> bound = launched();
        if (bound.isPresent()) {
            return agent.applyAsInt(bound.get());
        }
        return switch (load(args, environment)) {
            case Startup.Exit<S> end -> end.print(System.out, System.err);
            case Startup.Run<S>(S settings) -> agent.applyAsInt(launched(settings, args, environment));
        };
    }

    /**
     * The settings {@link #main} bound, for a bean the framework creates on {@code main}'s thread while it starts
     * (the exporter's HTTP server options); empty on other threads and without {@code main}.
     */
    public static <S> Optional<S> bound(Class<S> type) {
        return LAUNCHED.isBound() && type.isInstance(LAUNCHED.get().settings())
                ? Optional.of(type.cast(LAUNCHED.get().settings())) : Optional.empty();
    }

    /**
     * Whether this thread runs an agent that an entry point launched with {@link #main}: a real process, which
     * SIGTERM stops (the {@link Supervisor} then relays it). False in tests and dev mode, whose JVM keeps its own
     * SIGTERM.
     */
    static boolean launchedByMain() {
        return LAUNCHED.isBound();
    }

    private Optional<Launched<S>> launched() {
        if (bound(type).isEmpty()) {
            return Optional.empty();
        }
        @SuppressWarnings("unchecked")
        Launched<S> launched = (Launched<S>) LAUNCHED.get();
        return Optional.of(launched);
    }

    private Launched<S> launched(S settings, String[] args, Function<String, String> environment) {
        List<String> command = List.of(args);
        return new Launched<>(settings, () -> loader.load(command.toArray(String[]::new), environment));
    }
}
