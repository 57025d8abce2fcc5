package dev.kgpu.simulator;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The issue-22 repro at scale: the simulated node with both kubelet APIs ({@code --dra}, 8 A100s), pods that
 * alternately ask for {@code nvidia.com/gpu: 1} and for a claim of DeviceClass {@code gpu.nvidia.com}, 12 in flight,
 * each deleted once it runs, until at least {@value #LIFECYCLES} have gone through created → Running → deleted → gone.
 * The node's runtime counts the running containers each GPU is in at every start ({@code GpuOccupancy}): the test
 * fails when any GPU was ever in two. Pods the kubelet failed (an Allocate the ledger refused) are counted and
 * replaced. Waits are polls of the API server with a deadline, never sleeps.
 */
class BothApisNoDoubleHandOutIT {

    static final int LIFECYCLES = 500;
    static final int IN_FLIGHT = 12;
    static final Duration UP = Duration.ofSeconds(180);
    static final Duration DEADLINE = Duration.ofMinutes(12);
    static final Pattern OCCUPANCY = Pattern.compile("GPU occupancy: (\\d+) containers started with a GPU; the most"
            + " containers each GPU was in at once: \\{(.*)}");

    @Test
    void noGpuIsEverInTwoContainersAcrossFiveHundredPodsOfBothApis(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir)
            throws Exception {
        int completed = 0;
        int failed = 0;
        Path workDir;
        try (SimulatorProcess simulator = SimulatorProcess.start(dir, List.of("--profile=dgx-a100", "--dra"))) {
            simulator.awaitOutput("Press Ctrl-C to stop the node.", UP);
            workDir = simulator.workDir();
            Config config = Config.fromKubeconfig(Files.readString(simulator.workDir().resolve("kubeconfig")));
            try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
                client.dynamicResourceAllocation().v1().resourceClaimTemplates().inNamespace("ml").resource(
                        new ResourceClaimTemplateBuilder().withNewMetadata().withName("one-gpu").withNamespace("ml").endMetadata()
                                .withNewSpec().withNewSpec().withNewDevices().addNewRequest().withName("gpu").withNewExactly()
                                .withDeviceClassName("gpu.nvidia.com").endExactly().endRequest().endDevices().endSpec().endSpec()
                                .build()).create();
                Random random = new Random(22);
                Map<String, Long> deleted = new LinkedHashMap<>();
                Map<String, Long> runningUntil = new LinkedHashMap<>();
                List<String> inFlight = new ArrayList<>();
                int created = 0;
                long deadline = System.nanoTime() + DEADLINE.toNanos();
                while (completed < LIFECYCLES) {
                    assertThat(System.nanoTime() - deadline).as("%s lifecycles done before the deadline", completed).isNegative();
                    while (inFlight.size() < IN_FLIGHT) {
                        String name = (created % 2 == 0 ? "dp-" : "claim-") + created;
                        client.pods().inNamespace("ml").resource(created % 2 == 0 ? devicePluginPod(name) : claimPod(name)).create();
                        inFlight.add(name);
                        created++;
                    }
                    for (Pod pod : client.pods().inNamespace("ml").list().getItems()) {
                        String name = pod.getMetadata().getName();
                        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
                        if (!inFlight.contains(name) || deleted.containsKey(name)) {
                            continue;
                        }
                        if ("Failed".equals(phase)) {
                            failed++;
                            client.pods().inNamespace("ml").withName(name).delete();
                            deleted.put(name, System.nanoTime());
                        } else if ("Running".equals(phase)) {
                            // runs 20 ms to 1.5 s (seeded), then goes: some end before the plugin's next PodResources List
                            long until = runningUntil.computeIfAbsent(name,
                                    n -> System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20 + random.nextInt(1480)));
                            if (System.nanoTime() - until >= 0) {
                                client.pods().inNamespace("ml").withName(name).delete();
                                deleted.put(name, System.nanoTime());
                            }
                        }
                    }
                    List<String> present = client.pods().inNamespace("ml").list().getItems().stream()
                            .map(p -> p.getMetadata().getName()).toList();
                    for (String name : List.copyOf(deleted.keySet())) {
                        if (!present.contains(name)) {
                            deleted.remove(name);
                            runningUntil.remove(name);
                            inFlight.remove(name);
                            completed++;
                        }
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                }
            }
            simulator.terminate();
            assertThat(simulator.awaitExit(Duration.ofSeconds(60))).isEqualTo(143);
        }
        String log = Files.readString(workDir.resolve("logs/simulator.log"));
        System.out.println("BothApisNoDoubleHandOutIT: " + completed + " lifecycles, " + failed + " pods refused at"
                + " admission; " + log.lines().filter(l -> l.contains("GPU occupancy")).limit(3).toList());
        assertThat(log).as("a GPU in two containers at once").doesNotContain("GPU occupancy: a GPU is in more than one container");
        Matcher summary = OCCUPANCY.matcher(log);
        assertThat(summary.find()).as("the runtime's count at the node's close").isTrue();
        assertThat(Long.parseLong(summary.group(1))).as("containers that ran with a GPU").isGreaterThanOrEqualTo(LIFECYCLES - failed);
        List<Integer> most = Pattern.compile("=(\\d+)").matcher(summary.group(2)).results()
                .map(m -> Integer.parseInt(m.group(1))).toList();
        assertThat(most).as("GPUs used").hasSize(8).allMatch(n -> n == 1);
        assertThat(failed).as("pods refused at admission (the kubelet picked a GPU a claim had just taken)")
                .isLessThan(LIFECYCLES / 10);
    }

    static Pod devicePluginPod(String name) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("ml").endMetadata()
                .withNewSpec().withRestartPolicy("Never").addNewContainer().withName("main").withImage("ubuntu:24.04")
                .withCommand("sleep", "infinity").withNewResources().addToLimits("nvidia.com/gpu", new Quantity("1"))
                .endResources().endContainer().endSpec().build();
    }

    static Pod claimPod(String name) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("ml").endMetadata()
                .withNewSpec().withRestartPolicy("Never").addNewResourceClaim().withName("gpu")
                .withResourceClaimTemplateName("one-gpu").endResourceClaim()
                .addNewContainer().withName("main").withImage("ubuntu:24.04").withCommand("sleep", "infinity")
                .withNewResources().addNewClaim().withName("gpu").endClaim().endResources().endContainer().endSpec().build();
    }
}
