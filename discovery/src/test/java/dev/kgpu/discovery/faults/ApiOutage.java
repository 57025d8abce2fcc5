package dev.kgpu.discovery.faults;

import dev.kgpu.agent.testing.PackagedAgent;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The API-outage fault test of docs/reliability.md, on packaged feature discovery as its image runs it (node label
 * sink, dgx-a100 mock node): for {@value #OUTAGE_SECONDS} s the API server's address accepts connections and
 * resets them (a crashed API server behind its load balancer), counting every attempt; then a real (fabric8 CRUD)
 * API server comes up on the same address with the Node. Reports how discovery rode it out: attempts and their
 * spacing (the backoff), WARNING lines logged, readiness during the outage, and the time from the server's return to
 * the labels on the Node. Run by
 * {@code ./mvnw -B -Pfaults -pl discovery -am integration-test -DskipTests}; writes
 * {@code target/bench/discovery-api-outage.md}. No thresholds.
 */
public final class ApiOutage {

    static final int OUTAGE_SECONDS = 90;
    static final String NODE = "node-a";

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("kgpu-outage");
        int apiPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            apiPort = probe.getLocalPort();
        }
        Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: outage
                  cluster: {server: "http://127.0.0.1:%d"}
                users:
                - name: gfd
                  user: {token: "t"}
                contexts:
                - name: outage
                  context: {cluster: outage, user: gfd}
                current-context: outage
                """.formatted(apiPort));
        int healthPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            healthPort = probe.getLocalPort();
        }
        Path log = dir.resolve("discovery.log");
        List<Instant> attempts = new ArrayList<>();
        StringBuilder out = new StringBuilder("Machine: ").append(Runtime.getRuntime().availableProcessors())
                .append(" CPUs, Java ").append(System.getProperty("java.version")).append(", ").append(Instant.now())
                .append("\n\n");
        Process discovery = null;
        try (ServerSocket resetting = new ServerSocket(apiPort, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
                while (!resetting.isClosed()) {
                    try (Socket socket = resetting.accept()) {
                        synchronized (attempts) {
                            attempts.add(Instant.now());
                        }
                        socket.setSoLinger(true, 0); // RST, as a load balancer with no backend answers
                    } catch (IOException e) {
                        // closed at the end of the outage
                    }
                }
            });
            ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "@" + PackagedAgent.jvmOptions(), "-jar", Path.of("target/quarkus-app/quarkus-run.jar").toAbsolutePath().toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            Map<String, String> env = builder.environment();
            env.put("KUBECONFIG", kubeconfig.toString());
            env.put("NODE_NAME", NODE);
            env.put("KGPU_LABEL_SINK", "node");
            env.put("GFD_SLEEP_INTERVAL", "60s");
            env.put("GFD_MACHINE_TYPE_FILE", "");
            env.put("MOCK_NVML_PROFILE", "dgx-a100");
            env.put("QUARKUS_HTTP_PORT", Integer.toString(healthPort));
            Instant started = Instant.now();
            discovery = builder.start();
            int readyDuringOutage = 0;
            int probes = 0;
            while (Duration.between(started, Instant.now()).toSeconds() < OUTAGE_SECONDS) {
                Thread.sleep(1_000);
                probes++;
                if (PackagedAgent.status(healthPort, "/q/health/ready") == 200) {
                    readyDuringOutage++;
                }
                if (!discovery.isAlive()) {
                    break;
                }
            }
            boolean aliveAfterOutage = discovery.isAlive();
            resetting.close();
            acceptor.join(5_000);
            List<Long> gaps = new ArrayList<>();
            synchronized (attempts) {
                for (int i = 1; i < attempts.size(); i++) {
                    gaps.add(Duration.between(attempts.get(i - 1), attempts.get(i)).toMillis());
                }
            }
            long warnings;
            try (var lines = Files.lines(log)) {
                warnings = lines.filter(l -> l.contains("WARN") && l.contains("the labelling pass failed")).count();
            }
            out.append("| API outage (").append(OUTAGE_SECONDS).append(" s of connections reset) | value |\n|---|---|\n")
                    .append("| discovery still running at the end of the outage | ").append(aliveAfterOutage).append(" |\n")
                    .append("| connections attempted | ").append(attempts.size()).append(" |\n")
                    .append("| gaps between attempts (ms) | ").append(gaps).append(" |\n")
                    .append("| WARNING lines about failed passes | ").append(warnings).append(" |\n")
                    .append("| readiness probes answered 200 during the outage | ").append(readyDuringOutage).append(" of ")
                    .append(probes).append(" |\n");

            KubernetesMockServer api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                    new KubernetesCrudDispatcher(new ArrayList<>()), false);
            api.init(InetAddress.getLoopbackAddress(), apiPort);
            try (KubernetesClient client = api.createClient()) {
                client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
                Instant back = Instant.now();
                Duration labelled = null;
                while (Duration.between(back, Instant.now()).toSeconds() < 300) {
                    var labels = client.nodes().withName(NODE).get().getMetadata().getLabels();
                    if (labels != null && "8".equals(labels.get("nvidia.com/gpu.count")) && PackagedAgent.status(healthPort, "/q/health/ready") == 200) {
                        labelled = Duration.between(back, Instant.now());
                        break;
                    }
                    Thread.sleep(100);
                }
                out.append("| API server back -> Node labelled and discovery ready | ")
                        .append(labelled == null ? "not within 300 s" : String.format("%.1f s", labelled.toMillis() / 1000.0))
                        .append(" |\n");
            } finally {
                api.destroy();
            }
        } finally {
            if (discovery != null) {
                discovery.destroy();
                discovery.waitFor(20, TimeUnit.SECONDS);
            }
        }
        out.append("\nLoad average at the end: ").append(Files.readString(Path.of("/proc/loadavg")).strip()).append('\n');
        System.out.println(out);
        Path file = Path.of("target/bench/discovery-api-outage.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, out.toString());
        System.exit(0);
    }
}
