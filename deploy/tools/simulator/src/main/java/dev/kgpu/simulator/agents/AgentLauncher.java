package dev.kgpu.simulator.agents;


import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Starts an agent exactly as its container image would, from the module's packaged Quarkus app:
 * {@code java @jvm.options [-XX:AOTCache=<app>/app.aot] --enable-native-access=ALL-UNNAMED -jar <app>/quarkus-run.jar},
 * with {@code java} from {@code JAVA_HOME}, the JVM options file of the images ({@code deploy/release/images/jvm.options})
 * when it exists, and an environment that holds only what the agent is given (nothing of the user's shell
 * beyond PATH, HOME and the locale), so the user's KUBECONFIG or QUARKUS_* never leak in.
 *
 * <p>With the system property {@value #NATIVE} set to {@code true} (the simulator's native profile sets it for its
 * ITs) each agent runs as its native executable instead, {@code <module>/target/<module>-<version>-runner}, built
 * with {@code -Pnative}: the same environment, no JVM options.
 *
 * <p>Output goes to {@code logs/<agent>.log}; the validator's verdict lines (its stdout) to
 * {@code logs/validator.out}.
 */
public final class AgentLauncher {

    private static final List<String> INHERITED = List.of("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "USER");

    /** The system property that makes every agent start as its native executable. */
    public static final String NATIVE = "kgpu.native-agents";

    private final Path root;
    private final Path java;
    private final Optional<Path> jvmOptions;
    private final Path logs;
    private final Map<String, String> environment;

    public AgentLauncher(Path root, Path java, Optional<Path> jvmOptions, Path logs, Map<String, String> environment) {
        this.root = root;
        this.java = java;
        this.jvmOptions = jvmOptions;
        this.logs = logs;
        this.environment = Map.copyOf(environment);
    }

    /** The {@code java} of {@code JAVA_HOME}, else the one running the simulator. */
    public static Path javaExecutable(Map<String, String> environment) {
        String javaHome = environment.get("JAVA_HOME");
        if (javaHome != null && !javaHome.isBlank()) {
            Path java = Path.of(javaHome, "bin", "java");
            if (Files.isExecutable(java)) {
                return java;
            }
        }
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** {@code deploy/release/images/jvm.options} when it exists. */
    public static Optional<Path> jvmOptionsFile(Path root) {
        Path file = root.resolve("deploy/release/images/jvm.options");
        return Files.isRegularFile(file) ? Optional.of(file) : Optional.empty();
    }

    public Path java() {
        return java;
    }

    public Optional<Path> jvmOptions() {
        return jvmOptions;
    }

    /**
     * Checks that every agent's app is built.
     *
     * @throws SimulatorException.NotBuilt naming each missing app
     */
    public static void checkBuilt(Path root, Collection<Agent> agents) {
        List<String> missing = new ArrayList<>();
        for (Agent agent : agents) {
            if (Boolean.getBoolean(NATIVE)) {
                if (nativeExecutable(root, agent).isEmpty()) {
                    missing.add(agent.id() + "/target/" + agent.id() + "-*-runner");
                }
                continue;
            }
            Path jar = agent.appDirectory(root).resolve("quarkus-run.jar");
            if (!Files.isRegularFile(jar)) {
                missing.add(root.relativize(jar).toString());
            }
        }
        if (!missing.isEmpty() && Boolean.getBoolean(NATIVE)) {
            throw new SimulatorException.NotBuilt("the agents' native executables are not built (" + String.join(", ", missing)
                    + " missing): run ./mvnw -B -DskipTests -Pnative package first");
        }
        if (!missing.isEmpty()) {
            throw new SimulatorException.NotBuilt("the agents are not built (" + String.join(", ", missing)
                    + " missing): run ./mvnw -B -DskipTests package first, or use the README's command"
                    + " ./mvnw -B -q -DskipTests -Psimulated-node package, which builds them");
        }
    }

    /**
     * Checks that each port is free on the loopback interface, where the agents listen.
     *
     * @throws SimulatorException.PortInUse naming the agent, the port and the option that moves it
     */
    public static void checkPortsFree(Map<Agent, Integer> ports) {
        List<String> taken = new ArrayList<>();
        ports.forEach((agent, port) -> {
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            } catch (IOException e) {
                taken.add("--" + agent.id() + "-port was '" + port + "' but that port is in use (another simulated node"
                        + " or agent?); stop it or choose another, e.g. --" + agent.id() + "-port=" + (port + 10000)
                        + " or -Dkgpu." + agent.id() + "-port=" + (port + 10000));
            }
        });
        if (!taken.isEmpty()) {
            throw new SimulatorException.PortInUse(String.join("\n", taken));
        }
    }

    /** The agent's native executable, {@code <module>/target/<module>-*-runner}, when it was built. */
    static Optional<Path> nativeExecutable(Path root, Agent agent) {
        Path target = root.resolve(agent.id()).resolve("target");
        try (var files = Files.list(target)) {
            return files.filter(f -> f.getFileName().toString().matches(agent.id() + "-.*-runner") && Files.isExecutable(f))
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Spawns {@code agent} with {@code agentEnvironment} on top of the inherited basics. */
    public AgentProcess start(Agent agent, int port, Map<String, String> agentEnvironment) {
        return start(agent, port, agentEnvironment, List.of(), agent.id());
    }

    /**
     * Spawns {@code agent}'s app in another of its modes: {@code arguments} after the jar (the plugin's
     * {@code mps-control-daemon}), its output in {@code logs/<logName>.log}.
     */
    public AgentProcess start(Agent agent, int port, Map<String, String> agentEnvironment, List<String> arguments,
                              String logName) {
        Path app = agent.appDirectory(root);
        List<String> command = new ArrayList<>();
        AotCache cache = AotCache.none();
        Optional<Path> executable = Boolean.getBoolean(NATIVE) ? nativeExecutable(root, agent) : Optional.empty();
        if (executable.isPresent()) {
            command.add(executable.get().toString());
            app = executable.get().getParent();
        } else {
            command.add(java.toString());
            jvmOptions.ifPresent(file -> command.add("@" + file));
            Path aot = app.resolve("app.aot");
            if (Files.isRegularFile(aot)) {
                command.add("-XX:AOTCache=" + aot);
                cache = AotCache.of(aot);
            }
            command.add("--enable-native-access=ALL-UNNAMED");
            command.add("-jar");
            command.add(app.resolve("quarkus-run.jar").toString());
        }
        command.addAll(arguments);

        ProcessBuilder builder = new ProcessBuilder(command).directory(app.toFile());
        Map<String, String> env = builder.environment();
        env.clear();
        INHERITED.forEach(name -> Optional.ofNullable(environment.get(name)).ifPresent(v -> env.put(name, v)));
        env.putAll(agentEnvironment);
        Path log = logs.resolve(logName + ".log");
        if (agent == Agent.VALIDATOR) {
            builder.redirectOutput(logs.resolve("validator.out").toFile()).redirectError(log.toFile());
        } else {
            builder.redirectErrorStream(true).redirectOutput(log.toFile());
        }
        builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        long spawned = System.nanoTime();
        try {
            Process process = builder.start();
            return new AgentProcess(agent, process, spawned, port, log, cache);
        } catch (IOException e) {
            throw new SimulatorException.SetupFailed("could not start the " + agent.id() + " with " + command + ": "
                    + e.getMessage(), e);
        }
    }
}
