package dev.kgpu.gpucheck.smi;

import dev.kgpu.gpucheck.node.NodeValues;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code nvidia-smi} (the real one, or the fake of a mock run) with a timeout, so a hung driver
 * cannot hang the check.
 *
 * @param command the executable
 * @param timeout for each call
 */
public record NvidiaSmi(Path command, Duration timeout) {

    /** One {@code -q -x} read with the compute capabilities, and the raw XML. */
    public record Snapshot(NodeValues node, String xml, String computeCapNote) {
    }

    /**
     * Reads the node: {@code -q -x}, then {@code --query-gpu=pci.bus_id,compute_cap} (which {@code -q} lacks;
     * an nvidia-smi too old for it leaves compute capability uncompared).
     *
     * @throws NvidiaSmiException when nvidia-smi fails, times out or writes XML that does not parse
     */
    public Snapshot read() {
        String xml = run(List.of("-q", "-x"));
        Map<String, String> caps = Map.of();
        String note = "";
        try {
            caps = SmiXml.parseComputeCaps(run(List.of("--query-gpu=pci.bus_id,compute_cap", "--format=csv,noheader")));
        } catch (NvidiaSmiException | IllegalArgumentException e) {
            note = "compute capability not compared: " + e.getMessage();
        }
        try {
            return new Snapshot(SmiXml.parse(xml, "nvidia-smi (" + command + ")", caps), xml, note);
        } catch (IllegalArgumentException e) {
            throw new NvidiaSmiException(e.getMessage());
        }
    }

    /** Runs nvidia-smi with {@code args} and returns its standard output. */
    public String run(List<String> args) {
        List<String> line = new ArrayList<>();
        line.add(command.toString());
        line.addAll(args);
        Process process;
        try {
            process = new ProcessBuilder(line).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
        } catch (IOException e) {
            throw new NvidiaSmiException("could not run " + String.join(" ", line) + ": " + e.getMessage());
        }
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new NvidiaSmiException(String.join(" ", line) + " did not finish within " + timeout.toSeconds() + " s");
            }
            String stdout = new String(out.get(5, TimeUnit.SECONDS), StandardCharsets.UTF_8);
            String stderr = new String(err.get(5, TimeUnit.SECONDS), StandardCharsets.UTF_8).strip();
            if (process.exitValue() != 0) {
                String said = !stderr.isEmpty() ? stderr : stdout.strip();
                throw new NvidiaSmiException(String.join(" ", line) + " exited " + process.exitValue()
                        + (said.isEmpty() ? "" : ": " + said.lines().findFirst().orElse("")));
            }
            return stdout;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new NvidiaSmiException("interrupted while running " + String.join(" ", line));
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new NvidiaSmiException("could not read the output of " + String.join(" ", line) + ": " + e.getMessage());
        }
    }

    private static byte[] readAll(InputStream in) {
        try (in; ByteArrayOutputStream buffer = new ByteArrayOutputStream()) {
            in.transferTo(buffer);
            return buffer.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** nvidia-smi could not be read; the message says why in one line. */
    public static final class NvidiaSmiException extends RuntimeException {
        public NvidiaSmiException(String message) {
            super(message);
        }
    }
}
