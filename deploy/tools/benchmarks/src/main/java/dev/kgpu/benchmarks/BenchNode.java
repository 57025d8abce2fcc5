package dev.kgpu.benchmarks;

import dev.kgpu.sim.apiserver.ApiServer;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.podresources.FakePodResourcesServer;
import dev.kgpu.sim.runtime.SimulatedGpus;
import dev.kgpu.simulator.NodeLayout;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One subject's simulated node: the mock NVML's profile laid out as a driver root ({@link NodeLayout}), the kubelet's
 * device manager ({@link KubeletSimulator}), its PodResources API ({@link FakePodResourcesServer}, every GPU held
 * by a pod of its own, so the exporter's series carry pod labels) and the API server holding the Node
 * ({@link ApiServer}, the simulated node's). Every subject gets the same profile; each its own folder, kubelet and
 * API server, so two subjects' agents can run at the same time.
 *
 * @param profilesDir the mock's profile folder ({@code MOCK_NVML_PROFILE_DIR})
 */
record BenchNode(NodeLayout layout, String profile, Path profilesDir, String nodeName, List<String> gpuUuids,
                 KubeletSimulator kubelet, FakePodResourcesServer podResources, ApiServer api) implements AutoCloseable {

    static final String RESOURCE = "nvidia.com/gpu";

    static BenchNode create(Path root, Path checkout, SimulatedGpus gpus, String profile) {
        NodeLayout layout = NodeLayout.create(root, gpus, "kgpu-simulated-" + profile);
        KubeletSimulator kubelet = KubeletSimulator.start(layout.devicePlugins());
        FakePodResourcesServer podResources = FakePodResourcesServer.start(layout.podResourcesSocket());
        List<String> uuids = gpus.gpus().stream().map(SimulatedGpus.Gpu::uuid).toList();
        for (int i = 0; i < uuids.size(); i++) {
            podResources.assign("trainer-" + i, "ml", "main", RESOURCE, List.of(uuids.get(i)));
        }
        return new BenchNode(layout, profile, checkout.resolve("nvml-ffm/nvml/mock/profiles"), "kgpu-bench-node", uuids,
                kubelet, podResources, ApiServer.start(0));
    }

    /**
     * Replaces the Node with a fresh one without labels, so the next discovery run writes them all again, and
     * returns a watch that tells when the GPU labels appear on it (a watch event's arrival).
     */
    LabelWatch freshNode() {
        api.client().nodes().withName(nodeName).delete();
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(nodeName).endMetadata().build()).create();
        AtomicReference<Instant> labelled = new AtomicReference<>();
        String count = Integer.toString(gpuUuids.size());
        Watch watch = api.client().nodes().withName(nodeName).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Node node) {
                Instant now = Instant.now();
                Map<String, String> labels = node.getMetadata().getLabels();
                if (labels != null && count.equals(labels.get("nvidia.com/gpu.count"))) {
                    labelled.compareAndSet(null, now);
                }
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        });
        return new LabelWatch(watch, labelled);
    }

    /** When discovery's labels reached the Node, once they have. */
    record LabelWatch(Watch watch, AtomicReference<Instant> labelled) implements AutoCloseable {
        Optional<Instant> labelledAt() {
            return Optional.ofNullable(labelled.get());
        }

        @Override
        public void close() {
            watch.close();
        }
    }

    Path root() {
        return layout.root();
    }

    /** The driver's NVML in the node's driver root: the mock, as {@code libnvidia-ml.so.1}. */
    Path nvmlLibrary() {
        return layout.driverRoot().resolve("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
    }

    Path nvmlLibraryDirectory() {
        return nvmlLibrary().getParent();
    }

    /** A fresh file for discovery's labels. */
    Path labelsFile(String name) {
        Path file = root().resolve("labels").resolve(name);
        try {
            Files.createDirectories(file.getParent());
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** Where the validator's driver component writes its verdict ({@code driver-ready}), removed so that a run writes it anew. */
    Path freshDriverVerdict() {
        Path file = layout.validations().resolve("driver-ready");
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** Appends an XID line to the mock's events file and returns when it was written. */
    Instant injectXid(String uuid, int xid) {
        try {
            Files.writeString(layout.eventsFile(), "xid " + uuid + " " + xid + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return Instant.now();
        } catch (IOException e) {
            throw new UncheckedIOException("could not append to " + layout.eventsFile(), e);
        }
    }

    @Override
    public void close() {
        api.close();
        podResources.close();
        kubelet.close();
    }
}
