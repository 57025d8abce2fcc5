package dev.kgpu.simulator;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --dra} end to end: the simulated node as a process with the real plugin running its DRA driver beside the
 * device plugin. The driver registers through the kubelet's plugin watcher and publishes the node's ResourceSlices;
 * the validator's plugin component passes through a claim; the README's two demos (this module's {@code examples/})
 * run: a claim selecting {@code productName} by CEL, and one claim shared by two pods, each prepared by the plugin's
 * NodePrepareResources and injected through the claim's CDI spec, unprepared when its last pod goes. About 85 s on
 * the loaded 2-core build machine.
 */
class SimulatedDraNodeIT {

    private static final Duration UP = Duration.ofSeconds(180);
    private static final String A100 = "NVIDIA A100-SXM4-80GB";

    @Test
    void claimsAreAllocatedByCelPreparedByThePluginAndShared(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
        try (SimulatorProcess simulator = SimulatorProcess.start(dir, List.of("--profile=dgx-a100", "--dra"))) {
            simulator.awaitOutput("Press Ctrl-C to stop the node.", UP);
            assertThat(simulator.output()).contains("the plugin's DRA driver gpu.nvidia.com registered and published 8"
                    + " devices in ResourceSlices [gpu-0, gpu-1, gpu-2, gpu-3, gpu-4, gpu-5, gpu-6, gpu-7]");
            assertThat(Files.readString(simulator.workDir().resolve("logs/validator.out")))
                    .contains("plugin PASSED node kgpu-sim-node publishes 8 gpu.nvidia.com devices in its ResourceSlices")
                    .contains("with a ResourceClaim of DeviceClass gpu.nvidia.com: Test PASSED")
                    .contains("cuda PASSED");
            Path cdi = simulator.workDir().resolve("var/run/cdi");

            Config config = Config.fromKubeconfig(Files.readString(simulator.workDir().resolve("kubeconfig")));
            try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
                // a claim from a template whose selector names the product
                apply(client, "dra-gpu-by-product.yaml");
                Pod a100 = SimulatedNodeIT.await("ml/a100-pod Running", () -> running(client, "a100-pod"));
                String claimName = a100.getStatus().getResourceClaimStatuses().getFirst().getResourceClaimName();
                ResourceClaim claim = claim(client, claimName);
                String device = claim.getStatus().getAllocation().getDevices().getResults().getFirst().getDevice();
                assertThat(device).matches("gpu-[0-7]");
                String uid = claim.getMetadata().getUid();
                assertThat(cdi.resolve("k8s.gpu.nvidia.com-claim_" + uid + ".json")).as("the claim's CDI spec").isRegularFile();
                assertThat(log(client, "a100-pod")).contains("nvidia-smi -L in it would print:", A100,
                        "CDI devices k8s.gpu.nvidia.com/claim=" + uid + "-" + device + " gave it:");

                // one claim, two pods: allocated once, reserved for both, both given the same device
                apply(client, "dra-shared-claim.yaml");
                SimulatedNodeIT.await("ml/shared-a Running", () -> running(client, "shared-a"));
                SimulatedNodeIT.await("ml/shared-b Running", () -> running(client, "shared-b"));
                ResourceClaim shared = claim(client, "shared-gpu");
                assertThat(shared.getStatus().getReservedFor()).extracting(r -> r.getName())
                        .containsExactlyInAnyOrder("shared-a", "shared-b");
                String sharedDevice = shared.getStatus().getAllocation().getDevices().getResults().getFirst().getDevice();
                assertThat(sharedDevice).as("not the a100-pod's device").isNotEqualTo(device);
                String cdiName = "k8s.gpu.nvidia.com/claim=" + shared.getMetadata().getUid() + "-" + sharedDevice;
                assertThat(log(client, "shared-a")).contains(cdiName);
                assertThat(log(client, "shared-b")).contains(cdiName);
                Path sharedSpec = cdi.resolve("k8s.gpu.nvidia.com-claim_" + shared.getMetadata().getUid() + ".json");
                assertThat(sharedSpec).isRegularFile();

                // the first pod goes: still prepared for the other; the last goes: unprepared, deallocated
                client.pods().inNamespace("ml").withName("shared-a").delete();
                SimulatedNodeIT.await("shared-gpu reserved for shared-b only", () -> Optional.of(claim(client, "shared-gpu"))
                        .filter(c -> c.getStatus().getReservedFor() != null && c.getStatus().getReservedFor().size() == 1));
                assertThat(sharedSpec).isRegularFile();
                client.pods().inNamespace("ml").withName("shared-b").delete();
                SimulatedNodeIT.await("shared-gpu deallocated", () -> Optional.of(claim(client, "shared-gpu"))
                        .filter(c -> c.getStatus() == null || c.getStatus().getAllocation() == null));
                SimulatedNodeIT.await("the shared claim's CDI spec removed", () -> Files.exists(sharedSpec) ? Optional.empty() : Optional.of(true));
            }
            simulator.terminate();
            assertThat(simulator.awaitExit(Duration.ofSeconds(60))).as("exit status after SIGTERM").isEqualTo(143);
        }
    }

    private static void apply(KubernetesClient client, String example) throws Exception {
        Path file = Path.of(System.getProperty("kgpu.root"), "deploy/tools/simulator/examples", example);
        try (InputStream in = Files.newInputStream(file)) {
            client.load(in).create();
        }
    }

    private static Optional<Pod> running(KubernetesClient client, String name) {
        return Optional.ofNullable(client.pods().inNamespace("ml").withName(name).get())
                .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()));
    }

    private static ResourceClaim claim(KubernetesClient client, String name) {
        return client.dynamicResourceAllocation().v1().resourceClaims().inNamespace("ml").withName(name).get();
    }

    private static String log(KubernetesClient client, String pod) {
        return client.pods().inNamespace("ml").withName(pod).inContainer("main").getLog();
    }
}
