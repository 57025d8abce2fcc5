package dev.kgpu.plugin.bench;

import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Empty;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.kgpu.plugin.health.HealthPolicy;
import dev.kgpu.plugin.testing.MockNvmlPlugin;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.kubelet.RegistrationEvent;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The device plugin's benchmark harness, run by {@code ./mvnw -B -Pbench -pl plugin -am verify -DskipTests}:
 * <ol>
 *   <li>Allocate latency over the Unix socket (a kubelet-side gRPC client, dgx-a100 profile);</li>
 *   <li>time from an injected XID to the ListAndWatch message that shows the GPU Unhealthy;</li>
 *   <li>time from {@code kubelet.sock} being recreated (a kubelet restart) to the plugin's new registration;</li>
 *   <li>the packaged application ({@code target/quarkus-app}) as a process: start to registered, and RSS.</li>
 * </ol>
 * Results go to stdout and {@code target/bench/plugin-bench.md}. No thresholds: the figures are recorded in
 * docs/benchmarks.md, not asserted.
 */
public final class PluginBenchmark {

    private static final int ALLOCATE_WARMUP = 3_000;
    private static final int ALLOCATE_CALLS = 20_000;
    private static final int XID_ROUNDS = 40;
    private static final int RESTART_ROUNDS = 20;

    public static void main(String[] args) throws Exception {
        Path work = Files.createTempDirectory("kgpu-plugin-bench");
        List<String> report = new ArrayList<>();
        report.add("| measurement | samples | p50 | p99 | max |");
        report.add("|---|---|---|---|---|");
        try (MockNvmlPlugin plugin = MockNvmlPlugin.builder(work).profile("dgx-a100").start()) {
            plugin.await("nvidia.com/gpu", r -> r.allocatable() == 8);
            report.add(row("Allocate (1 GPU, envvar) over the Unix socket", allocate(plugin)));
            report.add(row("XID injected -> ListAndWatch shows Unhealthy", xidToUpdate(plugin)));
            report.add(row("kubelet.sock recreated -> plugin registered again", reRegistration(plugin)));
        }
        Path app = Path.of("target/quarkus-app/quarkus-run.jar");
        String process = Files.exists(app) ? processStart(app, Files.createTempDirectory("kgpu-plugin-bench-app"))
                : "(target/quarkus-app/quarkus-run.jar not built: run with verify)";
        StringBuilder out = new StringBuilder();
        out.append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs, Java ")
                .append(System.getProperty("java.version")).append(", ").append(Instant.now()).append('\n');
        out.append("Load average at the end: ").append(loadAverage()).append("\n\n");
        report.forEach(line -> out.append(line).append('\n'));
        out.append('\n').append(process).append('\n');
        System.out.println(out);
        Path file = Path.of("target/bench/plugin-bench.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, out.toString());
        System.exit(0);
    }

    /** Nanoseconds per blocking Allocate call from a client on the plugin's socket. */
    static long[] allocate(MockNvmlPlugin plugin) {
        try (UnixSocketTransport transport = new UnixSocketTransport("bench-client", 1)) {
            ManagedChannel channel = transport.dial(plugin.dir.resolve("nvidia-gpu.sock"));
            DevicePluginGrpc.DevicePluginBlockingStub stub = DevicePluginGrpc.newBlockingStub(channel);
            AllocateRequest request = AllocateRequest.newBuilder()
                    .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(plugin.gpuUuid(3))).build();
            for (int i = 0; i < ALLOCATE_WARMUP; i++) {
                stub.allocate(request);
            }
            long[] samples = new long[ALLOCATE_CALLS];
            for (int i = 0; i < ALLOCATE_CALLS; i++) {
                long start = System.nanoTime();
                stub.allocate(request);
                samples[i] = System.nanoTime() - start;
            }
            UnixSocketTransport.close(channel);
            return samples;
        }
    }

    /** Nanoseconds from injecting an XID to the ListAndWatch message that lists that GPU Unhealthy. */
    static long[] xidToUpdate(MockNvmlPlugin plugin) throws InterruptedException {
        BlockingQueue<Long> unhealthyAt = new LinkedBlockingQueue<>();
        String[] victim = new String[1];
        try (UnixSocketTransport transport = new UnixSocketTransport("bench-watch", 1)) {
            ManagedChannel channel = transport.dial(plugin.dir.resolve("nvidia-gpu.sock"));
            DevicePluginGrpc.newStub(channel).listAndWatch(Empty.getDefaultInstance(), new StreamObserver<>() {
                @Override
                public void onNext(ListAndWatchResponse response) {
                    long now = System.nanoTime();
                    String wanted = victim[0];
                    if (wanted != null && response.getDevicesList().stream()
                            .anyMatch(d -> d.getID().equals(wanted) && d.getHealth().equals("Unhealthy"))) {
                        unhealthyAt.add(now);
                    }
                }

                @Override
                public void onError(Throwable t) {
                }

                @Override
                public void onCompleted() {
                }
            });
            long[] samples = new long[XID_ROUNDS];
            for (int i = 0; i < XID_ROUNDS; i++) {
                String uuid = plugin.gpuUuid(i % 8);
                victim[0] = uuid;
                long start = System.nanoTime();
                plugin.mock.injectXid(uuid, 94);
                Long seen = unhealthyAt.poll(10, TimeUnit.SECONDS);
                if (seen == null) {
                    throw new IllegalStateException("no ListAndWatch update after XID on " + uuid);
                }
                samples[i] = seen - start;
                victim[0] = null;
                plugin.clock.advance(HealthPolicy.DEFAULT_QUIET_PERIOD);
                plugin.node.checkHealthNow();
                plugin.await("nvidia.com/gpu", r -> r.allocatable() == 8);
                unhealthyAt.clear();
            }
            UnixSocketTransport.close(channel);
            return samples;
        }
    }

    /** Nanoseconds from the simulator's kubelet.sock accepting again to the plugin's accepted registration. */
    static long[] reRegistration(MockNvmlPlugin plugin) {
        KubeletSimulator kubelet = plugin.kubelet;
        long[] samples = new long[RESTART_ROUNDS];
        for (int i = 0; i < RESTART_ROUNDS; i++) {
            int before = kubelet.registrations().size();
            kubelet.restart();
            Instant recreated = Instant.now();
            kubelet.await(() -> kubelet.registrations().size() > before && kubelet.registrations().getLast().accepted(),
                    Duration.ofSeconds(20), "re-registration");
            RegistrationEvent event = kubelet.registrations().getLast();
            samples[i] = Duration.between(recreated, event.at()).toNanos();
            plugin.await("nvidia.com/gpu", r -> r.connected() && r.allocatable() == 8);
        }
        return samples;
    }

    /** Launches the packaged plugin next to a kubelet simulator; start -> registered, and RSS once registered. */
    static String processStart(Path app, Path dir) throws IOException, InterruptedException {
        StringBuilder out = new StringBuilder("| packaged app (java -jar target/quarkus-app/quarkus-run.jar, rtx3060) | value |\n|---|---|\n");
        try (KubeletSimulator kubelet = KubeletSimulator.start(dir)) {
            ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:+UseSerialGC", "-Xmx64m", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED",
                    "-Dquarkus.http.port=0", "-jar", app.toAbsolutePath().toString())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("plugin.log").toFile());
            builder.environment().put("KUBELET_SOCKET", dir.resolve("kubelet.sock").toString());
            builder.environment().put("MOCK_NVML_PROFILE", "rtx3060");
            long start = System.nanoTime();
            Process process = builder.start();
            try {
                kubelet.awaitResource("nvidia.com/gpu", r -> r.allocatable() == 1, Duration.ofSeconds(60));
                long registered = System.nanoTime() - start;
                long rss = rssKiB(process.pid());
                out.append("| process start -> nvidia.com/gpu registered and listed | ").append(millis(registered)).append(" |\n");
                out.append("| RSS once registered | ").append(rss / 1024).append(" MiB |\n");
            } finally {
                process.destroy();
                boolean exited = process.waitFor(20, TimeUnit.SECONDS);
                out.append("| SIGTERM -> exit status | ").append(exited ? process.exitValue() : "did not exit")
                        .append(Files.exists(dir.resolve("nvidia-gpu.sock")) ? " (socket left behind)" : " (socket removed)")
                        .append(" |\n");
            }
        }
        return out.toString();
    }

    static long rssKiB(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    static String row(String name, long[] samples) {
        long[] sorted = samples.clone();
        Arrays.sort(sorted);
        return "| " + name + " | " + sorted.length + " | " + millis(percentile(sorted, 50)) + " | "
                + millis(percentile(sorted, 99)) + " | " + millis(sorted[sorted.length - 1]) + " |";
    }

    static long percentile(long[] sorted, int p) {
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }

    private PluginBenchmark() {
    }

}
