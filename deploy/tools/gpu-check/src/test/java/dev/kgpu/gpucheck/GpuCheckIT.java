package dev.kgpu.gpucheck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bundle a developer copies to a GPU machine, made by {@code deploy/tools/gpu-check/bundle} (the agents as
 * {@code kgpu.gpu-check.agents} says: their native executables under {@code -Pnative}, else their packaged apps;
 * with its jlinked runtime for the check, so everything runs on exactly what the GPU machine gets), unpacked,
 * and its {@code run} script against the mock as CI's stand-in for a GPU: every value matches; a fake
 * nvidia-smi that says one different thing makes it exit 1 naming that field; a bad option exits 2 with one
 * line; without {@code --out} the report goes under {@code TMPDIR}, never into the caller's folder.
 *
 * <p>About 2 minutes on a loaded 2-CPU machine: the bundle (jlink, jar rewriting, tar) ~35 s, the full
 * check ~60 s (four agents started one after another), the one-step check ~10 s.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GpuCheckIT {

    private static final Path ROOT = Path.of(System.getProperty("kgpu.root", "../../..")).toAbsolutePath().normalize();
    private static final Path TARGET = Path.of(System.getProperty("kgpu.gpu-check.target", "target")).toAbsolutePath();
    private static final Path IT = TARGET.resolve("gpu-check-it");
    private static final String AGENTS = System.getProperty("kgpu.gpu-check.agents", "jvm");
    private static Path run;

    private record Result(int status, String output) {
    }

    private static Result exec(List<String> command, Map<String, String> env, long timeoutSeconds) throws IOException, InterruptedException {
        return exec(command, env, timeoutSeconds, ROOT);
    }

    private static Result exec(List<String> command, Map<String, String> env, long timeoutSeconds, Path directory)
            throws IOException, InterruptedException {
        Files.createDirectories(IT);
        Path log = Files.createTempFile(IT, "exec", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish within " + timeoutSeconds + " s:\n" + Files.readString(log));
        }
        return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    @BeforeAll
    static void bundle() throws IOException, InterruptedException {
        Path tar = IT.resolve("kgpu-gpu-check.tar");
        Result bundled = exec(List.of(ROOT.resolve("deploy/tools/gpu-check/bundle").toString(), "--compression", "none",
                "--agents", AGENTS, "--output", tar.toString()), Map.of(), 600);
        assertThat(bundled.status()).as(bundled.output()).isZero();
        Path unpacked = IT.resolve("unpacked");
        exec(List.of("rm", "-rf", unpacked.toString()), Map.of(), 60);
        Files.createDirectories(unpacked);
        Result untar = exec(List.of("tar", "-xf", tar.toString(), "-C", unpacked.toString()), Map.of(), 120);
        assertThat(untar.status()).as(untar.output()).isZero();
        run = unpacked.resolve("kgpu-gpu-check/run");
        assertThat(unpacked.resolve("kgpu-gpu-check/runtime/bin/java")).isExecutable();
        if (AGENTS.equals("native")) {
            assertThat(bundled.output()).contains("agents: native executables");
            assertThat(unpacked.resolve("kgpu-gpu-check/plugin/target/quarkus-app")).doesNotExist();
        }
    }

    private static JsonNode report(Path out) throws IOException {
        return new ObjectMapper().readTree(out.resolve("report.json").toFile());
    }

    @Test
    @Order(1)
    void theWholeCheckAgainstTheMockMatchesEverywhere() throws IOException, InterruptedException {
        Path out = IT.resolve("report-all-match");
        Result result = exec(List.of(run.toString(), "--mock", "--out", out.toString(), "--timeout", "400"), Map.of(), 560);

        assertThat(result.status()).as(result.output()).isZero();
        assertThat(result.output()).contains("# kgpu GPU check: all match", "gpu-check: report: " + out.resolve("report.md"),
                "agents: " + AGENTS);
        JsonNode report = report(out);
        assertThat(report.get("outcome").asText()).isEqualTo("all-match");
        assertThat(report.get("nvml").get("gpus")).hasSize(8);
        List<String> ran = new ArrayList<>();
        report.get("steps").forEach(s -> ran.add(s.get("step").asText() + " " + s.get("status").asText()));
        assertThat(ran).containsExactly("nvml RAN", "plugin RAN", "discovery RAN", "exporter RAN", "validator RAN", "cost RAN");
        List<String> agents = new ArrayList<>();
        report.get("agents").forEach(a -> {
            agents.add(a.get("agent").asText());
            assertThat(a.get("startToReadyMs").asLong()).as(a.toString()).isPositive();
            assertThat(a.get("rssKib").asLong()).as(a.toString()).isGreaterThan(10_000);
        });
        assertThat(agents).containsExactly("plugin", "discovery", "exporter", "validator");
        assertThat(report.get("nvmlCallCost")).hasSize(5);
        List<String> fields = new ArrayList<>();
        report.get("findings").forEach(f -> fields.add(f.get("step").asText() + " " + f.get("field").asText()));
        assertThat(fields).contains("nvml fb_memory_usage.total", "nvml compute_cap", "nvml ecc_mode.current_ecc", "nvml power_draw",
                "plugin ListAndWatch devices", "plugin Allocate", "plugin nvmlDeviceRegisterEvents (XID, ECC)",
                "discovery nvidia.com/gpu.product", "discovery nvidia.com/gpu.family", "exporter DCGM_FI_DEV_GPU_TEMP",
                "exporter DCGM_FI_PROF_DRAM_ACTIVE", "validator driver-ready DRIVER_VERSION");
        assertThat(out.resolve("nvidia-smi.xml")).content().contains("<nvidia_smi_log>");
        assertThat(out.resolve("gfd-labels.txt")).content().contains("nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3");
        assertThat(out.resolve("metrics.txt")).content().contains("DCGM_FI_DEV_GPU_TEMP{");
        assertThat(out.resolve("agent-logs.txt")).content().contains("==== plugin.log ====");
    }

    @Test
    @Order(2)
    void aWrongNvidiaSmiValueFailsTheCheckNamingTheField() throws IOException, InterruptedException {
        Path fake = IT.resolve("wrong-nvidia-smi");
        Path java = run.resolveSibling("runtime/bin/java");
        Files.writeString(fake, "#!/bin/sh\n\"" + java + "\" -cp '" + run.resolveSibling("lib") + "/*' dev.kgpu.gpucheck.smi.FakeNvidiaSmi \"$@\""
                + " | sed '0,/<total>81559 MiB<\\/total>/s//<total>40960 MiB<\\/total>/'\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path out = IT.resolve("report-mismatch");

        Result result = exec(List.of(run.toString(), "--mock", "--nvidia-smi", fake.toString(), "--steps", "nvml",
                "--out", out.toString()), Map.of(), 300);

        assertThat(result.status()).as(result.output()).isEqualTo(1);
        String line = "nvml GPU 0 GPU-1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c01: fb_memory_usage.total was '81559' but nvidia-smi says '40960'";
        assertThat(result.output()).contains("# kgpu GPU check: 1 mismatch", line);
        JsonNode report = report(out);
        assertThat(report.get("outcome").asText()).isEqualTo("mismatch");
        assertThat(report.get("mismatches")).hasSize(1);
        assertThat(report.get("mismatches").get(0).asText()).startsWith(line);
    }

    @Test
    @Order(3)
    void aBadOptionIsOneLineAndExitTwo() throws IOException, InterruptedException {
        Result result = exec(List.of(run.toString(), "--timeout", "forever"), Map.of(), 60);

        assertThat(result.status()).isEqualTo(2);
        assertThat(result.output().strip()).isEqualTo("gpu-check: --timeout was 'forever' but it must be a whole number of seconds from 10 to 3600");
    }

    @Test
    @Order(4)
    void withoutOutTheReportGoesUnderTmpdirNotIntoTheCallersFolder() throws IOException, InterruptedException {
        Path caller = Files.createDirectories(IT.resolve("caller-folder"));
        Path tmp = Files.createDirectories(IT.resolve("tmpdir"));
        exec(List.of("rm", "-rf", caller.toString() + "/", tmp.toString() + "/"), Map.of(), 60);
        Files.createDirectories(caller);
        Files.createDirectories(tmp);

        Result result = exec(List.of(run.toString(), "--mock", "--steps", "nvml"), Map.of("TMPDIR", tmp.toString()), 300, caller);

        assertThat(result.status()).as(result.output()).isZero();
        try (var left = Files.list(caller)) {
            assertThat(left.toList()).as("the caller's folder").isEmpty();
        }
        try (var reports = Files.list(tmp)) {
            Path report = reports.filter(p -> p.getFileName().toString().startsWith("kgpu-gpu-check-")).findFirst()
                    .orElseThrow(() -> new AssertionError("no kgpu-gpu-check-* report folder under " + tmp + ":\n" + result.output()));
            assertThat(report.resolve("report.md")).exists();
            assertThat(result.output()).contains("gpu-check: report: " + report.resolve("report.md"));
        }
    }
}
