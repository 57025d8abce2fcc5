package dev.kgpu.simulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The simulated node as a process of its own, started the way the Maven profile starts it (its class path,
 * its JVM options), on free ports, with its output in a file next to (not in) the work directory.
 */
final class SimulatorProcess implements AutoCloseable {

    private final Process process;
    private final Path output;
    private final Path workDir;

    private SimulatorProcess(Process process, Path output, Path workDir) {
        this.process = process;
        this.output = output;
        this.workDir = workDir;
    }

    /** Starts the simulator with {@code args} plus a work dir under {@code dir} and free ports. */
    static SimulatorProcess start(Path dir, List<String> args) throws IOException {
        Path workDir = dir.resolve("node");
        Path output = dir.resolve("simulator.out");
        String classes = required("kgpu.simulator.classes");
        String classpath = Files.readString(Path.of(required("kgpu.simulator.classpath-file"))).strip();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(required("kgpu.simulator.jvm.args").trim().split("\\s+")));
        command.addAll(List.of("-cp", classes + ":" + classpath, SimulatedNodeMain.class.getName()));
        command.add("--root=" + required("kgpu.root"));
        command.add("--work-dir=" + workDir);
        List<Integer> ports = freePorts(4);
        command.add("--plugin-port=" + ports.get(0));
        command.add("--discovery-port=" + ports.get(1));
        command.add("--exporter-port=" + ports.get(2));
        command.add("--validator-port=" + ports.get(3));
        command.add("--timeout=90");
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        // the simulator's own settings come from these flags only
        builder.environment().keySet().removeIf(name -> name.startsWith("KGPU_SIM_"));
        return new SimulatorProcess(builder.start(), output, workDir);
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + property + " is unset: run this test through Maven"
                    + " (./mvnw -pl deploy/tools/simulator -am verify)");
        }
        return value;
    }

    private static List<Integer> freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket();
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                sockets.add(socket);
            }
            return sockets.stream().map(ServerSocket::getLocalPort).toList();
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }

    Path workDir() {
        return workDir;
    }

    long pid() {
        return process.pid();
    }

    /** Everything the simulator printed so far. */
    String output() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until the output contains {@code text}; fails early when the process ends first. */
    void awaitOutput(String text, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!output().contains(text)) {
            if (!process.isAlive()) {
                throw new AssertionError("the simulator exited with " + process.exitValue() + " before printing '"
                        + text + "':\n" + output());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the simulator did not print '" + text + "' within " + timeout + ":\n" + output());
            }
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }

    /** Waits for the exit status. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the simulator did not exit within " + timeout + ":\n" + output());
        }
        return process.exitValue();
    }

    /** SIGTERM, as Ctrl-C's shutdown would. */
    void terminate() {
        process.destroy();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        }
    }
}
