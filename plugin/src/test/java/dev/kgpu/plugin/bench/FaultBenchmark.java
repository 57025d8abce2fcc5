package dev.kgpu.plugin.bench;

import dev.kgpu.agent.testing.PackagedAgent;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodSpec;
import dev.kgpu.sim.kubelet.RegistrationEvent;
import dev.kgpu.sim.kubelet.ResourceState;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The device plugin's fault tests, on the packaged plugin as its image runs it ({@code java @deploy/release/images/jvm.options
 * -jar target/quarkus-app/quarkus-run.jar}, dgx-a100 mock node) next to the kubelet simulator:
 * <ol>
 *   <li>kubelet restarts: {@value #RESTARTS} times the simulator restarts as a kubelet does (stops, deletes every
 *       socket, serves {@code kubelet.sock} again); each round counts as re-registered when the plugin's
 *       Register is accepted and all 8 GPUs are listed again within 10 s; threads and open descriptors of the
 *       plugin before and after;</li>
 *   <li>XID storm: {@value #STORM} XID lines appended at once to the mock's events file (XID 94 on four GPUs, XID 13,
 *       which NVIDIA ignores, on the others); the time until the four are Unhealthy, whether Allocate is still
 *       served for the other four, and how many XID lines the plugin logged.</li>
 * </ol>
 * Run by {@code ./mvnw -B -Pbench -pl plugin -am integration-test -DskipTests -Dbench.main=dev.kgpu.plugin.bench.FaultBenchmark}
 * after a package; writes {@code target/bench/plugin-faults.md}. No thresholds: figures go to docs/reliability.md.
 */
public final class FaultBenchmark {

    static final int RESTARTS = 100;
    static final int STORM = 1_000;
    static final Duration ROUND = Duration.ofSeconds(10);

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("kgpu-faults");
        Path events = dir.resolve("nvml-events");
        Files.writeString(events, "");
        Path log = dir.resolve("plugin.log");
        List<String> uuids = MockNvml.profile("dgx-a100").gpus().stream().map(g -> MockProfile.string(g, "uuid")).toList();
        StringBuilder out = new StringBuilder();
        out.append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs, Java ")
                .append(System.getProperty("java.version")).append(", ").append(Instant.now()).append("\n\n");
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir.resolve("device-plugins"))) {
            ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "@" + PackagedAgent.jvmOptions(), "-Dquarkus.http.port=0", "-jar",
                    Path.of("target/quarkus-app/quarkus-run.jar").toAbsolutePath().toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().put("KUBELET_SOCKET", kubelet.socket().toString());
            builder.environment().put("MOCK_NVML_PROFILE", "dgx-a100");
            builder.environment().put("MOCK_NVML_EVENTS", events.toString());
            builder.environment().put("KGPU_HEALTH_QUIET_PERIOD", "1h");
            Process plugin = builder.start();
            try {
                kubelet.awaitResource("nvidia.com/gpu", r -> r.allocatable() == 8, Duration.ofSeconds(90));
                Thread.sleep(2_000); // let start-up threads settle before counting
                long threadsBefore = threads(plugin.pid());
                long fdsBefore = descriptors(plugin.pid());

                long[] times = new long[RESTARTS];
                int reRegistered = 0;
                for (int i = 0; i < RESTARTS; i++) {
                    int before = kubelet.registrations().size();
                    kubelet.restart();
                    Instant recreated = Instant.now();
                    try {
                        kubelet.await(() -> kubelet.registrations().size() > before
                                && kubelet.registrations().getLast().accepted(), ROUND, "re-registration");
                        RegistrationEvent event = kubelet.registrations().getLast();
                        kubelet.awaitResource("nvidia.com/gpu", r -> r.connected() && r.allocatable() == 8, ROUND);
                        times[reRegistered++] = Duration.between(recreated, event.at()).toNanos();
                    } catch (AssertionError | IllegalStateException e) {
                        System.err.println("round " + i + " not re-registered within " + ROUND + ": " + e.getMessage());
                    }
                }
                Thread.sleep(2_000);
                long threadsAfter = threads(plugin.pid());
                long fdsAfter = descriptors(plugin.pid());
                long[] done = Arrays.copyOf(times, reRegistered);
                Arrays.sort(done);
                out.append("| kubelet restarts | value |\n|---|---|\n")
                        .append("| re-registered with all 8 GPUs listed within ").append(ROUND.toSeconds()).append(" s | ")
                        .append(reRegistered).append(" of ").append(RESTARTS).append(" |\n")
                        .append("| kubelet.sock recreated -> registered: p50 / p99 / max | ").append(millis(percentile(done, 50)))
                        .append(" / ").append(millis(percentile(done, 99))).append(" / ")
                        .append(millis(done.length == 0 ? 0 : done[done.length - 1])).append(" |\n")
                        .append("| threads before -> after | ").append(threadsBefore).append(" -> ").append(threadsAfter).append(" |\n")
                        .append("| open descriptors before -> after | ").append(fdsBefore).append(" -> ").append(fdsAfter).append(" |\n\n");

                // the XID storm
                long xidLinesBefore = xidLines(log);
                StringBuilder storm = new StringBuilder();
                for (int i = 0; i < STORM; i++) {
                    int gpu = i % 8;
                    storm.append("xid ").append(uuids.get(gpu)).append(' ').append(gpu < 4 ? 94 : 13).append('\n');
                }
                long start = System.nanoTime();
                Files.writeString(events, storm, StandardOpenOption.APPEND);
                ResourceState down = kubelet.awaitResource("nvidia.com/gpu", r -> r.allocatable() == 4, Duration.ofSeconds(60));
                long toUnhealthy = System.nanoTime() - start;
                PodAdmission admitted = kubelet.admit(PodSpec.of("after-the-storm", "nvidia.com/gpu", 4));
                boolean served = admitted instanceof PodAdmission.Admitted a
                        && a.allocation().deviceIds("nvidia.com/gpu").stream().noneMatch(down.unhealthyIds()::contains);
                Thread.sleep(12_000); // past the XID log's 10 s window, and one health check to sum it up
                long xidLines = xidLines(log) - xidLinesBefore;
                out.append("| XID storm (").append(STORM).append(" XIDs: 94 on 4 GPUs, 13 on 4) | value |\n|---|---|\n")
                        .append("| written -> the 4 GPUs Unhealthy in ListAndWatch | ").append(millis(toUnhealthy)).append(" |\n")
                        .append("| Unhealthy afterwards | ").append(down.unhealthyIds().size()).append(" (")
                        .append(down.unhealthyIds().containsAll(uuids.subList(0, 4)) ? "exactly the GPUs with XID 94" : "NOT the expected GPUs")
                        .append(") |\n")
                        .append("| a pod asking for the 4 healthy GPUs | ").append(served ? "admitted, Allocate served" : "NOT served: " + admitted)
                        .append(" |\n")
                        .append("| XID lines the plugin logged | ").append(xidLines).append(" |\n")
                        .append("| threads / open descriptors after | ").append(threads(plugin.pid())).append(" / ")
                        .append(descriptors(plugin.pid())).append(" |\n");
            } finally {
                plugin.destroy();
                plugin.waitFor(20, TimeUnit.SECONDS);
            }
        }
        out.append("\nLoad average at the end: ").append(Files.readString(Path.of("/proc/loadavg")).strip()).append('\n');
        System.out.println(out);
        Path file = Path.of("target/bench/plugin-faults.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, out.toString());
        System.exit(0);
    }

    static long xidLines(Path log) throws IOException {
        try (var lines = Files.lines(log)) {
            return lines.filter(l -> l.contains("XID ") && l.contains(" on GPU-")).count();
        }
    }

    static long threads(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("Threads:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    static long descriptors(long pid) throws IOException {
        try (var fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return fds.count();
        }
    }

    static long percentile(long[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    static String millis(long nanos) {
        return String.format("%.1f ms", nanos / 1e6);
    }
}
