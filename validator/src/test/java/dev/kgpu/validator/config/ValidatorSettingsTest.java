package dev.kgpu.validator.config;

import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.GpuWorkload;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ValidatorSettingsTest {

    private static ValidatorSettings read(Map<String, String> env, String... args) {
        return ValidatorSettings.load(args, env::get);
    }

    @Test
    void nvidiaDefaultsApplyWhenNothingIsSet() {
        ValidatorSettings settings = read(Map.of("COMPONENT", "driver"));

        assertThat(settings.components()).containsExactly(Component.DRIVER);
        assertThat(settings.mode()).isEqualTo(Mode.ONESHOT);
        assertThat(settings.outputDir()).isEqualTo(Path.of("/run/nvidia/validations"));
        assertThat(settings.sleepInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(settings.withWait()).isFalse();
        assertThat(settings.withWorkload()).isTrue();
        assertThat(settings.pluginWaitTries()).isEqualTo(30);
        assertThat(settings.podWaitTries()).isEqualTo(60);
        assertThat(settings.migStrategy()).isEqualTo(MigStrategy.SINGLE);
        assertThat(settings.samplePod().image()).isEqualTo("nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0");
        assertThat(settings.roots().isHostDriver()).isTrue();
        assertThat(settings.roots().driverRootCtrPath()).isEqualTo("/host");
        assertThat(settings.cdiSpecDir()).isEmpty();
        assertThat(settings.describe()).containsEntry("OUTPUT_DIR", "/run/nvidia/validations")
                .containsEntry("SLEEP_INTERVAL_SECONDS", 5L).containsEntry("COMPONENT", List.of("driver"));
    }

    @Test
    void unsetComponentMeansAllInDependencyOrder() {
        ValidatorSettings settings = read(Map.of("NODE_NAME", "n1", "OPERATOR_NAMESPACE", "gpu-operator"));

        assertThat(settings.components())
                .containsExactly(Component.DRIVER, Component.TOOLKIT, Component.PLUGIN, Component.CUDA);
    }

    @Test
    void componentListIsPutInDependencyOrder() {
        ValidatorSettings settings = read(Map.of("COMPONENT", "cuda,driver", "NODE_NAME", "n1", "NAMESPACE", "ns"));

        assertThat(settings.components()).containsExactly(Component.DRIVER, Component.CUDA);
        assertThat(settings.namespace()).isEqualTo("ns");
    }

    @Test
    void flagsWinOverEnvironmentAndBooleanFlagsNeedNoValue() {
        ValidatorSettings settings = read(
                Map.of("COMPONENT", "driver", "SLEEP_INTERVAL_SECONDS", "9", "OUTPUT_DIR", "/env"),
                "-c", "toolkit", "--sleep-interval-seconds=2", "-w", "--output-dir", "/flag");

        assertThat(settings.components()).containsExactly(Component.TOOLKIT);
        assertThat(settings.sleepInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(settings.withWait()).isTrue();
        assertThat(settings.outputDir()).isEqualTo(Path.of("/flag"));
    }

    @Test
    void driverContainerRootsFollowNvidiasDefaults() {
        ValidatorSettings settings = read(Map.of("COMPONENT", "driver", "NVIDIA_DRIVER_ROOT", "/run/nvidia/driver"));

        assertThat(settings.roots().isHostDriver()).isFalse();
        assertThat(settings.roots().driverRootCtrPath()).isEqualTo("/run/nvidia/driver");
        assertThat(settings.roots().devRoot()).isEqualTo("/");
        assertThat(settings.roots().devRootCtrPath()).isEqualTo("/host");
    }

    @Test
    void kgpuSettingsAreRead() {
        ValidatorSettings settings = read(Map.of("COMPONENT", "toolkit", "KGPU_CDI_SPEC_DIR", "/var/run/cdi",
                "KGPU_SIMULATED_DEVICE_NODES", "true", "KGPU_VALIDATOR_MODE", "daemon",
                "KGPU_REVALIDATE_INTERVAL_SECONDS", "60", "VALIDATOR_IMAGE_PULL_SECRETS", "a, b",
                "VALIDATOR_RUNTIME_CLASS", "nvidia", "VALIDATOR_IMAGE_PULL_POLICY", "IfNotPresent"));

        assertThat(settings.cdiSpecDir()).contains(Path.of("/var/run/cdi"));
        assertThat(settings.simulatedDeviceNodes()).isTrue();
        assertThat(settings.mode()).isEqualTo(Mode.DAEMON);
        assertThat(settings.revalidateInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(settings.samplePod().pullSecrets()).containsExactly("a", "b");
        assertThat(settings.samplePod().runtimeClass()).contains("nvidia");
        assertThat(settings.samplePod().pullPolicy()).isEqualTo(Optional.of("IfNotPresent"));
    }

    @Test
    void everyBadValueIsReportedAtOnceNamingTheFieldAndValue() {
        assertThatThrownBy(() -> read(Map.of("COMPONENT", "driver,gpu", "SLEEP_INTERVAL_SECONDS", "soon",
                "WITH_WAIT", "maybe", "MIG_STRATEGY", "half", "OUTPUT_DIR", "relative/dir",
                "VALIDATOR_IMAGE_PULL_POLICY", "Sometimes", "KGPU_POD_WAIT_TRIES", "many")))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.failures())
                        .extracting(ValidationFailure::message).containsExactly(
                        "COMPONENT was 'driver,gpu' but it must be cc-manager, vfio-pci, vgpu-devices, driver,"
                                + " nvidia-fs, gdrcopy, nvidia-peermem, mofed, toolkit, plugin, cuda, a comma-separated"
                                + " list of them, all, or metrics",
                        "OUTPUT_DIR was 'relative/dir' but it must be an absolute path",
                        "WITH_WAIT was 'maybe' but it must be a boolean: 1, t, T, TRUE, true, True, 0, f, F, FALSE,"
                                + " false or False",
                        "SLEEP_INTERVAL_SECONDS was 'soon' but it must be a whole number of seconds",
                        "MIG_STRATEGY was 'half' but it must be one of none, single, mixed",
                        "VALIDATOR_IMAGE_PULL_POLICY was 'Sometimes' but it must be Always, IfNotPresent or Never",
                        "KGPU_POD_WAIT_TRIES was 'many' but it must be a whole number from 1 to 10000"));
        // and nothing of the rules across settings, which would judge all components standing in for the bad list
    }

    @Test
    void gpuOperatorsKernelModuleComponentsAreValidatedAfterTheDriver() {
        ValidatorSettings settings = read(Map.of("COMPONENT", "toolkit,nvidia-peermem,gdrcopy,driver,nvidia-fs,mofed"));
        assertThat(settings.components()).containsExactly(Component.DRIVER, Component.NVIDIA_FS, Component.GDRCOPY,
                Component.NVIDIA_PEERMEM, Component.MOFED, Component.TOOLKIT);
        assertThat(settings.components()).extracting(Component::statusFileName).containsExactly("driver-ready",
                "nvidia-fs-ready", "gdrcopy-ready", "nvidia-peermem-ready", "mofed-ready", "toolkit-ready");
        assertThat(settings.hostRoot()).isEqualTo(Path.of("/"));
    }

    @Test
    void metricsRunsAloneWithAPortAndANode() {
        ValidatorSettings settings = read(Map.of("COMPONENT", "metrics", "METRICS_PORT", "8000", "NODE_NAME", "gpu-1"));
        assertThat(settings.components()).containsExactly(Component.METRICS);
        assertThat(settings.metricsPort()).isEqualTo(8000);
        assertThatThrownBy(() -> read(Map.of("COMPONENT", "metrics")))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.failures())
                        .extracting(ValidationFailure::message).containsExactly(
                                "METRICS_PORT was '0' but it must be the port to serve /metrics on for the metrics"
                                        + " component (gpu-operator's node-status exporter sets 8000)",
                                "NODE_NAME was '' but it must name this node for the metrics component (set it from"
                                        + " the pod's spec.nodeName)"));
        assertThatThrownBy(() -> read(Map.of("COMPONENT", "metrics,driver", "METRICS_PORT", "8000", "NODE_NAME", "n")))
                .hasMessageContaining("COMPONENT was 'metrics,driver' but it must name metrics alone");
    }

    @Test
    void gpuOperatorsSandboxComponentsComeFirstInItsOrderAndVgpuManagerIsRefusedWithOneLineNamingWhy() {
        // as gpu-operator's sandbox-validator runs them: with the node's name
        ValidatorSettings settings = read(Map.of("COMPONENT", "vgpu-devices,vfio-pci,driver,cc-manager", "NODE_NAME", "n"));
        assertThat(settings.components()).containsExactly(Component.CC_MANAGER, Component.VFIO_PCI,
                Component.VGPU_DEVICES, Component.DRIVER);
        assertThat(settings.defaultWorkload()).isEqualTo(GpuWorkload.CONTAINER);
        assertThat(read(Map.of("COMPONENT", "vfio-pci", "NODE_NAME", "n", "DEFAULT_GPU_WORKLOAD_CONFIG", "vm-passthrough"))
                .defaultWorkload()).isEqualTo(GpuWorkload.VM_PASSTHROUGH);

        // one line, without the operator's namespace that a COMPONENT failing to read (all, by default) would ask for
        assertThatThrownBy(() -> read(Map.of("COMPONENT", "vgpu-manager")))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.failures())
                        .singleElement().extracting(ValidationFailure::message).asString()
                        .startsWith("COMPONENT was 'vgpu-manager' but it names vgpu-manager, a gpu-operator component"
                                + " kgpu's validator does not support: NVIDIA's runs the vGPU host driver's nvidia-smi")
                        .doesNotContain("\n"));
    }

    @Test
    void sampleComponentsNeedTheNodeAndTheNamespaceWhenEverySettingReads() {
        assertThatThrownBy(() -> read(Map.of("COMPONENT", "driver,plugin")))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.failures())
                        .extracting(ValidationFailure::message).containsExactly(
                        "NODE_NAME was '' but it must name this node for the plugin, cuda, cc-manager, vfio-pci and"
                                + " vgpu-devices components (set it from the pod's spec.nodeName)",
                        "OPERATOR_NAMESPACE was '' but it must name the namespace for sample pods when validating"
                                + " plugin or cuda (NAMESPACE is read too)"));
    }

    @Test
    void aSleepIntervalNvidiaAcceptsIsRaisedToOneSecondWithAWarning() {
        ValidatorSettings settings = read(Map.of("COMPONENT", "driver", "SLEEP_INTERVAL_SECONDS", "0"));

        assertThat(settings.sleepInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(settings.warnings()).extracting(Object::toString).containsExactly("SLEEP_INTERVAL_SECONDS: is '0',"
                + " which NVIDIA accepts but polls without pause below 1; kgpu uses '1'");
        assertThat(read(Map.of("COMPONENT", "driver"), "-s", "-3").sleepInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(read(Map.of("COMPONENT", "driver", "SLEEP_INTERVAL_SECONDS", "3600")).warnings()).isEmpty();
    }

    @Test
    void unknownFlagsAreRejected() {
        assertThatThrownBy(() -> read(Map.of("COMPONENT", "driver"), "--frobnicate"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("invalid configuration: --frobnicate was '' but it is not a flag of kgpu-validator (see --help)");
    }

    @Test
    void aBooleanFlagNeverTakesTheNextArgumentAsItsValue() {
        assertThat(read(Map.of("COMPONENT", "driver", "WITH_WAIT", "true"), "--with-wait=false").withWait()).isFalse();
        assertThatThrownBy(() -> read(Map.of("COMPONENT", "driver"), "--with-wait", "false"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("command line was 'false' but it must hold only flags, as kgpu-validator takes"
                        + " no arguments; a boolean flag takes its value as --flag=false");
    }

    @Test
    void aFlagNamesItselfInAFailureAndAnEmptyVariableIsUnset() {
        assertThatThrownBy(() -> read(Map.of("COMPONENT", "driver"), "-s", "5s"))
                .hasMessage("invalid configuration: -s was '5s' but it must be a whole number of seconds");
        ValidatorSettings settings = read(Map.of("COMPONENT", "driver", "WITH_WORKLOAD", "", "OUTPUT_DIR", " /out "));
        assertThat(settings.withWorkload()).isTrue();
        assertThat(settings.outputDir()).isEqualTo(Path.of("/out"));
    }

    @Test
    void nvmlIsLoadedFromTheLibraryElseUnderTheDriverRootAsThisContainerSeesIt() {
        assertThat(read(Map.of("COMPONENT", "driver")).nvml())
                .isEqualTo(new NvmlOptions(Optional.empty(), Path.of("/host")));
        assertThat(read(Map.of("COMPONENT", "driver", "KGPU_NVML_LIBRARY", "/lib/libnvidia-ml.so.1",
                "NVIDIA_DRIVER_ROOT", "/run/nvidia/driver")).nvml())
                .isEqualTo(new NvmlOptions(Optional.of(Path.of("/lib/libnvidia-ml.so.1")), Path.of("/run/nvidia/driver")));
    }

    @Test
    void helpPrintsEveryFlagAndVariable() {
        assertThatThrownBy(() -> read(Map.of(), "--help")).isInstanceOfSatisfying(UsageRequestedException.class,
                e -> assertThat(e.getMessage()).contains("--namespace, --ns=<string>", "(env OPERATOR_NAMESPACE, NAMESPACE;",
                        "  KGPU_POD_WAIT_TRIES\n".translateEscapes()));
    }
}
