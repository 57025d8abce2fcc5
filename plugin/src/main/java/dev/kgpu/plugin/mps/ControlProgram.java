package dev.kgpu.plugin.mps;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * NVIDIA's MPS control program, {@code nvidia-cuda-mps-control}, run as NVIDIA's {@code mps-control-daemon} runs it
 * ({@code cmd/mps-control-daemon/mps/daemon.go}): {@code -d} starts a daemon, which returns once the daemon accepts
 * clients; without arguments it is a client that sends the command on its standard input (written without a newline,
 * as NVIDIA writes it) to the daemon and prints the answer. Each run gets an environment of exactly the two variables
 * NVIDIA gives it, {@code CUDA_MPS_PIPE_DIRECTORY} and {@code CUDA_MPS_LOG_DIRECTORY}, and a time limit: a wedged
 * daemon must not hold whoever asks. Immutable and thread-safe.
 */
public final class ControlProgram {

    /** The program's name, as NVIDIA's agents look it up on {@code PATH}. */
    public static final String NAME = "nvidia-cuda-mps-control";
    /** The folders searched when {@code PATH} is not set (the images set none). */
    static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    /** How long one run may take. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final Path executable;
    private final Duration timeout;

    public ControlProgram(Path executable, Duration timeout) {
        this.executable = Objects.requireNonNull(executable, "executable");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * The program {@code control} names: an absolute path as it is, a name in the first folder of {@code path} (the
     * process's {@code PATH}, {@link #DEFAULT_PATH} when unset) that holds an executable of that name; empty when there
     * is none.
     */
    public static Optional<Path> locate(String control, Optional<String> path) {
        if (control.contains("/")) {
            Path given = Path.of(control);
            return Files.isRegularFile(given) && Files.isExecutable(given) ? Optional.of(given) : Optional.empty();
        }
        for (String folder : path.filter(p -> !p.isBlank()).orElse(DEFAULT_PATH).split(":")) {
            if (folder.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(folder, control);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Where {@code control} was looked for, for the line that says it is missing. */
    public static String searched(String control, Optional<String> path) {
        return control.contains("/") ? control : "PATH " + path.filter(p -> !p.isBlank()).orElse(DEFAULT_PATH);
    }

    public Path executable() {
        return executable;
    }

    /** {@code nvidia-cuda-mps-control -d}: starts the daemon of {@code pipe} and {@code log}. */
    public Result startDaemon(Path pipe, Path log) {
        return startDaemon(pipe, log, Map.of());
    }

    /**
     * {@code nvidia-cuda-mps-control -d} with {@code environment} besides the two folders (a claim's daemon gets
     * {@code CUDA_VISIBLE_DEVICES}, which its MPS servers inherit).
     */
    public Result startDaemon(Path pipe, Path log, Map<String, String> environment) {
        return run(List.of("-d"), pipe, log, Optional.empty(), environment);
    }

    /** Sends {@code command} to the daemon of {@code pipe} as a client; its answer. */
    public Result send(Path pipe, Path log, String command) {
        return run(List.of(), pipe, log, Optional.of(command), Map.of());
    }

    private Result run(List<String> arguments, Path pipe, Path log, Optional<String> input, Map<String, String> extra) {
        List<String> command = new java.util.ArrayList<>();
        command.add(executable.toString());
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.clear();
        env.putAll(extra);
        env.put("CUDA_MPS_PIPE_DIRECTORY", pipe.toString());
        env.put("CUDA_MPS_LOG_DIRECTORY", log.toString());
        if (input.isEmpty()) {
            builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        }
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            return new Result(Result.NOT_RUN, "could not run " + executable + ": " + e.getMessage());
        }
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()),
                runnable -> Thread.ofVirtual().name("mps-control-output").start(runnable));
        try {
            if (input.isPresent()) {
                try (OutputStream stdin = process.getOutputStream()) {
                    stdin.write(input.get().getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    // the program ended before reading: its status and output say why
                }
            }
            if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                process.destroyForcibly();
                process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
                return new Result(Result.TIMED_OUT, "did not answer within " + timeout.toSeconds() + "s");
            }
            // -d leaves a daemon that should hold none of its descriptors; give its output a moment, never forever
            return new Result(process.exitValue(), output.get(1, TimeUnit.SECONDS).strip());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Result(Result.NOT_RUN, "interrupted");
        } catch (ExecutionException | TimeoutException e) {
            return new Result(process.exitValue(), "");
        } finally {
            closeQuietly(process.getInputStream());
        }
    }

    private static String readAll(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            // nothing to do: the process has ended
        }
    }

    @Override
    public String toString() {
        return executable.toString();
    }

    /**
     * One run's outcome.
     *
     * @param status the exit status; {@link #NOT_RUN} when the program could not be run, {@link #TIMED_OUT} when it
     *               was killed after the time limit
     * @param output what it printed (standard output and error), stripped
     */
    public record Result(int status, String output) {

        public static final int NOT_RUN = -1;
        public static final int TIMED_OUT = -2;

        public Result {
            Objects.requireNonNull(output, "output");
        }

        /** Exit status 0: the daemon was reached (a client) or started ({@code -d}). */
        public boolean succeeded() {
            return status == 0;
        }

        /** For a line: {@code exit status 1: <output>}, or what kept it from running. */
        public String describe() {
            if (status == NOT_RUN || status == TIMED_OUT) {
                return output;
            }
            String first = output.lines().findFirst().orElse("");
            return "exit status " + status + (first.isEmpty() ? "" : ": " + first);
        }
    }
}
