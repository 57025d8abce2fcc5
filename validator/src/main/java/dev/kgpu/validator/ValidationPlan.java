package dev.kgpu.validator;

import dev.kgpu.validator.adapters.CdiSpecDirectory;
import dev.kgpu.validator.adapters.FileSystemDeviceNodes;
import dev.kgpu.validator.adapters.ProcModules;
import dev.kgpu.validator.adapters.SysfsPciDevices;
import dev.kgpu.validator.config.ValidatorSettings;
import dev.kgpu.validator.core.CcManagerValidator;
import dev.kgpu.validator.core.Cluster;
import dev.kgpu.validator.core.ComponentValidator;
import dev.kgpu.validator.core.CudaValidator;
import dev.kgpu.validator.core.DriverValidator;
import dev.kgpu.validator.core.GpuDriver;
import dev.kgpu.validator.core.KernelModuleValidator;
import dev.kgpu.validator.core.MofedValidator;
import dev.kgpu.validator.core.NodeLabels;
import dev.kgpu.validator.core.NodeStatusMetrics;
import dev.kgpu.validator.core.PluginValidator;
import dev.kgpu.validator.core.SamplePodRunner;
import dev.kgpu.validator.core.Sleeper;
import dev.kgpu.validator.core.StatusFiles;
import dev.kgpu.validator.core.ToolkitValidator;
import dev.kgpu.validator.core.ValidationPass;
import dev.kgpu.validator.core.VmWorkloadValidator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** Builds the validators that {@link ValidatorSettings} ask for, over the given ports. */
public final class ValidationPlan {

    private ValidationPlan() {
    }

    /**
     * @param cluster asked for only when a component reads the node ({@code plugin}, {@code cuda} and the sandbox
     *                components), so a driver-only run never needs an API server
     */
    public static ValidationPass build(ValidatorSettings settings, GpuDriver driver, Supplier<Cluster> cluster,
                                       StatusFiles statusFiles, InstantSource clock, Sleeper sleeper) {
        List<ComponentValidator> validators = new ArrayList<>();
        NodeLabels labels = new NodeLabels(cluster, settings.nodeName());
        for (var component : settings.components()) {
            validators.add(switch (component) {
                case CC_MANAGER -> new CcManagerValidator(labels,
                        () -> Files.exists(settings.outputDir().resolve(CcManagerValidator.READY_FILE)));
                case VFIO_PCI, VGPU_DEVICES -> VmWorkloadValidator.of(component, labels, settings.defaultWorkload(),
                        statusFiles, new SysfsPciDevices(settings.hostRoot()));
                case DRIVER -> new DriverValidator(driver, settings.roots());
                case TOOLKIT -> new ToolkitValidator(driver,
                        new FileSystemDeviceNodes(Path.of(settings.roots().devRoot())),
                        settings.cdiSpecDir().map(CdiSpecDirectory::new), settings.simulatedDeviceNodes(),
                        settings.migStrategy());
                case PLUGIN -> new PluginValidator(cluster.get(), settings.nodeName(), settings.namespace(), clock,
                        sleeper, settings.sleepInterval(), settings.pluginWaitTries(),
                        settings.withWorkload() ? Optional.of(podRunner(settings, cluster.get(), clock, sleeper))
                                : Optional.empty(),
                        settings.samplePod(), settings.migStrategy(), settings.pluginDeviceClass());
                case CUDA -> new CudaValidator(cluster.get(), settings.nodeName(), settings.namespace(),
                        podRunner(settings, cluster.get(), clock, sleeper), settings.samplePod(),
                        settings.migStrategy());
                case NVIDIA_FS, GDRCOPY, NVIDIA_PEERMEM -> KernelModuleValidator.of(component,
                        new ProcModules(settings.hostRoot()));
                case MOFED -> new MofedValidator(settings.gpuDirectRdma(), settings.hostMofed(),
                        new ProcModules(settings.hostRoot()), new SysfsPciDevices(settings.hostRoot()),
                        () -> Files.exists(settings.hostRoot().resolve("run/mellanox/drivers/.driver-ready")));
                case METRICS -> throw new IllegalArgumentException("metrics is no validation: see nodeStatusMetrics");
            });
        }
        return new ValidationPass(validators, statusFiles, settings.withWait(), settings.sleepInterval(), sleeper);
    }

    /** {@code COMPONENT=metrics}: the readings gpu-operator's node-status exporter serves. */
    public static NodeStatusMetrics nodeStatusMetrics(ValidatorSettings settings, GpuDriver driver,
                                                      Supplier<Cluster> cluster, StatusFiles statusFiles,
                                                      InstantSource clock) {
        return new NodeStatusMetrics(settings.nodeName(), statusFiles, new DriverValidator(driver, settings.roots()),
                cluster, new SysfsPciDevices(settings.hostRoot()), clock);
    }

    private static SamplePodRunner podRunner(ValidatorSettings settings, Cluster cluster, InstantSource clock,
                                             Sleeper sleeper) {
        return new SamplePodRunner(cluster, clock, sleeper, settings.sleepInterval(), settings.podWaitTries());
    }
}
