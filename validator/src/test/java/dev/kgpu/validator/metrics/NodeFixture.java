package dev.kgpu.validator.metrics;

import dev.kgpu.validator.adapters.DirectoryStatusFiles;
import dev.kgpu.validator.adapters.SysfsPciDevices;
import dev.kgpu.validator.core.Cluster;
import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.ComponentFailure;
import dev.kgpu.validator.core.ComponentValidator;
import dev.kgpu.validator.core.Evidence;
import dev.kgpu.validator.core.Layer;
import dev.kgpu.validator.core.NodeResources;
import dev.kgpu.validator.core.NodeStatusMetrics;
import dev.kgpu.validator.core.PodRequest;
import dev.kgpu.validator.core.PodState;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One node as the node-status exporter reads it, made of real files where the exporter reads files (status files
 * in an {@code OUTPUT_DIR}, a fake host root's {@code sys/bus/pci/devices}) and small fakes for the driver check
 * and the API server's Node.
 */
final class NodeFixture {

    final String name;
    final Path outputDir;
    final Path hostRoot;
    final AtomicBoolean driverWorks = new AtomicBoolean(true);
    /** The Node's capacity, empty for "no such node", null for "the API server fails". */
    final AtomicReference<Optional<Map<String, Long>>> capacity = new AtomicReference<>(Optional.of(Map.of()));

    NodeFixture(Path dir, String name) {
        this.name = name;
        this.outputDir = dir.resolve(name + "/validations");
        this.hostRoot = dir.resolve(name + "/host");
        try {
            Files.createDirectories(outputDir);
            Files.createDirectories(hostRoot.resolve("sys/bus/pci/devices"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes or removes {@code <component>-ready}, as the validator's init containers do. */
    NodeFixture ready(Component component, boolean ready) {
        try {
            Path file = outputDir.resolve(component.statusFileName());
            if (ready) {
                Files.writeString(file, "");
            } else {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Adds a PCI function with this vendor (a GPU, its audio function, a NIC). */
    NodeFixture pci(String busId, int vendor) {
        try {
            Path function = Files.createDirectories(hostRoot.resolve("sys/bus/pci/devices").resolve(busId));
            Files.writeString(function.resolve("vendor"), "0x%04x\n".formatted(vendor));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    NodeStatusMetrics metrics(InstantSource clock) {
        ComponentValidator driver = new ComponentValidator() {
            @Override
            public Component component() {
                return Component.DRIVER;
            }

            @Override
            public Evidence validate() {
                if (!driverWorks.get()) {
                    throw new ComponentFailure(Layer.DRIVER, "nvmlInit_v2: Driver Not Loaded (NVML_ERROR_DRIVER_NOT_LOADED)");
                }
                return Evidence.of("driver 550.54.15");
            }
        };
        return new NodeStatusMetrics(name, new DirectoryStatusFiles(outputDir), driver, this::cluster,
                new SysfsPciDevices(hostRoot), clock);
    }

    private Cluster cluster() {
        return new Cluster() {
            @Override
            public Optional<NodeResources> node(String node) {
                Optional<Map<String, Long>> now = capacity.get();
                if (now == null) {
                    throw new IllegalStateException("HTTP 503 from the API server");
                }
                return now.filter(c -> node.equals(name)).map(c -> new NodeResources(node, c, c));
            }

            @Override
            public List<String> sliceDevices(String nodeName, String driver) {
                throw new UnsupportedOperationException();
            }

            @Override
            public String createPod(PodRequest request) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Optional<PodState> pod(String namespace, String pod) {
                throw new UnsupportedOperationException();
            }

            @Override
            public String log(String namespace, String pod, String container) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void deletePod(String namespace, String pod) {
                throw new UnsupportedOperationException();
            }

            @Override
            public List<String> warningEvents(String namespace, String podName) {
                throw new UnsupportedOperationException();
            }

            @Override
            public List<String> podNames(String namespace, String appLabel, String nodeName) {
                throw new UnsupportedOperationException();
            }
        };
    }
}
