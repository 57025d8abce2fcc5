package dev.kgpu.sim.kubelet;

import dev.kgpu.sim.runtime.ContainerLogs;
import dev.kgpu.sim.runtime.ContainerRuntime;
import dev.kgpu.sim.runtime.DeviceManager;
import dev.kgpu.sim.scheduler.ExtendedResources;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scheduler and the kubelet against a CRUD API server, where the order in which they learn of changes
 * matters: the server deletes a pod at once, before the kubelet has let its devices go.
 */
@EnableKubernetesMockClient(crud = true)
class SchedulerAndKubeletIT {

    private static final String NODE = "node-1";
    private static final String GPU = "nvidia.com/gpu";
    private static final Duration SETTLE = Duration.ofSeconds(60);

    KubernetesClient client;

    /** A kubelet with one GPU, which rejects a pod that asks for it while another holds it. */
    static final class OneGpu implements DeviceManager {
        final Map<String, String> holders = new ConcurrentHashMap<>();

        @Override
        public Admission admit(Pod pod) {
            if (ExtendedResources.total(pod).getOrDefault(GPU, 0L) == 0) {
                return new Admission.Admitted(Map.of());
            }
            if (!holders.isEmpty()) {
                return new Admission.Rejected("OutOf" + GPU, "Pod was rejected: Node didn't have enough resource: " + GPU);
            }
            holders.put(pod.getMetadata().getUid(), pod.getMetadata().getName());
            return new Admission.Admitted(Map.of());
        }

        @Override
        public void release(Pod pod) {
            holders.remove(pod.getMetadata().getUid());
        }
    }

    /** Every container keeps running; starting pod {@code gate}'s waits until the test opens it. */
    static final class GatedRuntime implements ContainerRuntime, ContainerLogs {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);

        @Override
        public ContainerOutcome start(ContainerStart container) {
            if (container.pod().equals("gate")) {
                entered.countDown();
                try {
                    open.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new ContainerOutcome.Running("");
        }

        @Override
        public void put(String namespace, String pod, String container, String log) {
        }

        @Override
        public void remove(String namespace, String pod) {
        }
    }

    @Test
    void aPodDeletedButNotYetLetGoStillHoldsItsGpu() throws Exception {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        client.nodes().withName(NODE).editStatus(n -> {
            n.setStatus(new NodeStatus());
            n.getStatus().setAllocatable(Map.of(GPU, new Quantity("1")));
            return n;
        });
        OneGpu gpu = new OneGpu();
        GatedRuntime runtime = new GatedRuntime();
        try (SchedulerAndKubelet cluster = SchedulerAndKubelet.forNode(client, NODE).deviceManager(gpu)
                .runtime(runtime).logs(runtime).start()) {
            create(pod("holder", 1));
            cluster.awaitSettled(SETTLE);
            create(pod("waiting", 1));
            cluster.awaitSettled(SETTLE);
            assertThat(get("holder").getStatus().getPhase()).isEqualTo("Running");
            assertThat(get("waiting").getStatus().getConditions().getFirst().getReason()).isEqualTo("Unschedulable");

            // while the kubelet is busy starting another pod, the waiting pod changes and then the holder is
            // deleted: the scheduler takes the change first, when the API server has the holder gone already
            create(pod("gate", 0));
            assertThat(runtime.entered.await(60, TimeUnit.SECONDS)).as("the gate pod starting").isTrue();
            client.pods().inNamespace("ml").withName("waiting")
                    .edit(p -> new PodBuilder(p).editMetadata().addToLabels("touched", "yes").endMetadata().build());
            client.pods().inNamespace("ml").withName("holder").delete();
            runtime.open.countDown();
            cluster.awaitSettled(SETTLE);

            assertThat(get("waiting").getStatus().getPhase()).as("not rejected by the kubelet").isEqualTo("Running");
            assertThat(gpu.holders).containsValue("waiting");
        }
    }

    private static Pod pod(String name, int gpus) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("ml").endMetadata()
                .withNewSpec().addNewContainer().withName("main").withImage("cuda")
                .withNewResources().addToLimits(gpus > 0 ? Map.of(GPU, new Quantity(Integer.toString(gpus))) : Map.of())
                .endResources().endContainer().endSpec().build();
    }

    private void create(Pod pod) {
        client.pods().inNamespace("ml").resource(pod).create();
    }

    private Pod get(String name) {
        return client.pods().inNamespace("ml").withName(name).get();
    }
}
