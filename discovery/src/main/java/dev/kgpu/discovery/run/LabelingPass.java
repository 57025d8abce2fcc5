package dev.kgpu.discovery.run;

import dev.kgpu.discovery.labels.GpuFeatureLabels;
import dev.kgpu.discovery.labels.LabelInput;
import dev.kgpu.discovery.labels.LabelingException;
import dev.kgpu.discovery.labels.Labels;
import dev.kgpu.discovery.labels.NodeSnapshot;
import dev.kgpu.discovery.node.MachineType;
import dev.kgpu.discovery.node.NodeSnapshotReader;
import dev.kgpu.discovery.node.SysfsPci;
import dev.kgpu.discovery.publish.LabelSink;
import dev.kgpu.discovery.publish.PublishException;
import dev.kgpu.discovery.publish.SinkFactory;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlException;

import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One labelling pass: read the node, compute the labels, publish them. Keeps NVML open between passes
 * (and reopens it after a failure) and builds the sink on first use.
 *
 * <p>Thread-safety: confined to the supervisor thread.
 */
public final class LabelingPass implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LabelingPass.class.getName());

    /** Opens NVML; {@code Nvml::open} in production. */
    @FunctionalInterface
    public interface NvmlOpener {
        Nvml open();
    }

    /** Builds the sink for the current settings. */
    @FunctionalInterface
    public interface Sinks {
        LabelSink create(DiscoverySettings settings) throws PublishException;

        static Sinks of(SinkFactory factory) {
            return settings -> factory.create(new SinkFactory.Request(settings.sink(),
                    settings.nodeName(), settings.namespace(), settings.podName(), settings.outputFile(),
                    settings.removeOutputFileOnExit()));
        }
    }

    private final NvmlOpener opener;
    private final Sinks sinks;
    private final InstantSource clock;
    private Nvml nvml;
    private LabelSink sink;
    private List<String> loggedModels = List.of();
    /** What was wrong with the machine-type file at the last pass, so it is logged once per change. */
    private Optional<String> machineTypeProblem = Optional.empty();

    public LabelingPass(NvmlOpener opener, Sinks sinks, InstantSource clock) {
        this.opener = Objects.requireNonNull(opener, "opener");
        this.sinks = Objects.requireNonNull(sinks, "sinks");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public PassResult run(DiscoverySettings settings) {
        MachineType.Reading machine = MachineType.read(settings.machineTypeFile());
        if (!machine.problem().equals(machineTypeProblem)) {
            machine.problem().ifPresent(problem -> LOG.log(Level.WARNING, "{0}; labelling gpu.machine=unknown", problem));
            machineTypeProblem = machine.problem();
        }
        String machineType = machine.name();
        NodeSnapshotReader reader = new NodeSnapshotReader(new SysfsPci(settings.sysfsRoot()));
        NodeSnapshot node;
        Optional<String> nvmlProblem = Optional.empty();
        try {
            node = readNode(reader, machineType);
        } catch (NvmlException e) {
            if (settings.failOnInitError()) {
                return new PassResult.Fatal("NVML could not be used: " + e.getMessage()
                        + " (set FAIL_ON_INIT_ERROR=false to publish the labels that need no driver, report not ready and wait for the driver)");
            }
            nvmlProblem = Optional.of(e.getMessage());
            node = reader.readWithoutNvml(machineType);
        }
        warnAboutMixedModels(node);

        Labels labels;
        try {
            labels = GpuFeatureLabels.all().labels(new LabelInput(node, settings.labels(), clock.instant()));
        } catch (LabelingException e) {
            return new PassResult.Failed(e.getMessage());
        }
        try {
            if (sink == null) {
                sink = sinks.create(settings);
            }
            LabelSink.Outcome outcome = sink.publish(labels);
            return new PassResult.Published(labels, sink.name(), outcome, nvmlProblem);
        } catch (PublishException e) {
            return new PassResult.Failed(e.getMessage());
        } catch (IllegalArgumentException e) {
            return new PassResult.Fatal(e.getMessage());
        }
    }

    /**
     * Reads the node with the NVML kept open; when that fails, closes NVML and tries once more with a fresh
     * one (the driver may have been reloaded, making the old handles stale).
     */
    private NodeSnapshot readNode(NodeSnapshotReader reader, String machineType) {
        if (nvml != null) {
            try {
                return reader.read(nvml, machineType);
            } catch (NvmlException e) {
                LOG.log(Level.DEBUG, "reopening NVML after: {0}", e.getMessage());
                closeNvml();
            }
        }
        try {
            nvml = opener.open();
            return reader.read(nvml, machineType);
        } catch (NvmlException e) {
            closeNvml();
            throw e;
        }
    }

    private void warnAboutMixedModels(NodeSnapshot node) {
        List<String> models = GpuFeatureLabels.models(node);
        if (models.size() > 1 && !models.equals(loggedModels)) {
            String labelled = node.gpus().stream().filter(gpu -> !gpu.migEnabled()).findFirst()
                    .orElse(node.gpus().getFirst()).name();
            LOG.log(Level.WARNING, "several GPU models on this node {0}: the gpu.* labels describe {1}"
                    + " (the lowest-indexed GPU with MIG disabled)", models, labelled);
        }
        loggedModels = models;
    }

    /** Forgets the sink so that the next pass chooses it again (after a reload changed the settings). */
    void forgetSink() {
        sink = null;
    }

    private void closeNvml() {
        if (nvml != null) {
            try {
                nvml.close();
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "closing NVML after a failure: {0}", e.getMessage());
            }
            nvml = null;
        }
    }

    /** Closes the sink (the file sink may remove its file) and NVML. */
    @Override
    public void close() {
        if (sink != null) {
            sink.close();
        }
        closeNvml();
    }
}
