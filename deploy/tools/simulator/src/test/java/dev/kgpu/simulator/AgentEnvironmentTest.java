package dev.kgpu.simulator;

import dev.kgpu.simulator.agents.Agent;
import dev.kgpu.simulator.agents.ValidatorMode;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class AgentEnvironmentTest {

    private static final NodeLayout LAYOUT = new NodeLayout(Path.of("/tmp/node"));

    private final AgentEnvironment environment = new AgentEnvironment(Path.of("/k/libnvidia-ml.so.1"), "dgx-a100",
            "sim-node", "kgpu", "mixed", "envvar,cdi-cri", Optional.of("registry.example/vectoradd:1"),
            "http://127.0.0.1:6443", LAYOUT,
            ValidatorMode.DAEMON, false);

    @Test
    void everyAgentGetsTheMockNvmlAndTheNode() {
        for (Agent agent : Agent.values()) {
            assertThat(environment.of(agent, 1234)).containsAllEntriesOf(Map.of(
                    "KGPU_NVML_LIBRARY", "/k/libnvidia-ml.so.1", "MOCK_NVML_PROFILE", "dgx-a100",
                    "MOCK_NVML_EVENTS", "/tmp/node/nvml-events", "NODE_NAME", "sim-node", "NAMESPACE", "kgpu"));
        }
    }

    @Test
    void eachAgentGetsWhatItsDaemonSetGivesIt() {
        assertThat(environment.of(Agent.PLUGIN, 8081)).containsAllEntriesOf(Map.of(
                "KUBELET_SOCKET", "/tmp/node/device-plugins/kubelet.sock", "MIG_STRATEGY", "mixed",
                "QUARKUS_HTTP_HOST", "127.0.0.1", "QUARKUS_HTTP_PORT", "8081", "DEVICE_LIST_STRATEGY", "envvar,cdi-cri",
                "NVIDIA_DRIVER_ROOT", "/tmp/node", "CONTAINER_DRIVER_ROOT", "/tmp/node",
                "KGPU_CDI_SPEC_DIR", "/tmp/node/var/run/cdi", "KGPU_PROC_ROOT", "/tmp/node"))
                .as("only the validator has a mode").doesNotContainKey("KGPU_VALIDATOR_MODE");
        assertThat(environment.of(Agent.DISCOVERY, 8082)).containsAllEntriesOf(Map.of(
                "KUBERNETES_MASTER", "http://127.0.0.1:6443",
                "KUBERNETES_AUTH_TRYKUBECONFIG", "false", "KGPU_LABEL_SINK", "node", "MIG_STRATEGY", "mixed",
                "GFD_MACHINE_TYPE_FILE", "/tmp/node/machine-type", "KGPU_SYSFS_ROOT", "/tmp/node/sys"));
        assertThat(environment.of(Agent.EXPORTER, 19400)).containsAllEntriesOf(Map.of(
                "DCGM_EXPORTER_LISTEN", "127.0.0.1:19400", "DCGM_EXPORTER_KUBERNETES", "true",
                "DCGM_POD_RESOURCES_KUBELET_SOCKET", "/tmp/node/pod-resources/kubelet.sock",
                "DCGM_EXPORTER_INTERVAL", "2000"));
        assertThat(environment.of(Agent.VALIDATOR, 8083)).containsAllEntriesOf(Map.of(
                "KUBERNETES_MASTER", "http://127.0.0.1:6443", "OUTPUT_DIR", "/tmp/node/validations",
                "NVIDIA_DEV_ROOT", "/tmp/node", "KGPU_SIMULATED_DEVICE_NODES", "true", "MIG_STRATEGY", "mixed",
                "SLEEP_INTERVAL_SECONDS", "1", "KGPU_VALIDATOR_MODE", "daemon",
                "KGPU_CUDA_SAMPLE_IMAGE", "registry.example/vectoradd:1"))
                .as("a CDI strategy: the validator checks the plugin's names resolve")
                .containsEntry("KGPU_CDI_SPEC_DIR", "/tmp/node/var/run/cdi");
    }

    @Test
    void withDraThePluginRunsItsDriverAndTheValidatorClaimsThroughIt() {
        AgentEnvironment dra = new AgentEnvironment(Path.of("/k/libnvidia-ml.so.1"), "dgx-h100", "sim-node", "kgpu", "none",
                "envvar", Optional.empty(), "http://127.0.0.1:6443", LAYOUT, ValidatorMode.ONESHOT, true);

        assertThat(dra.of(Agent.PLUGIN, 8081)).containsAllEntriesOf(Map.of(
                "KGPU_KUBELET_APIS", "device-plugin,dra", "CDI_ROOT", "/tmp/node/var/run/cdi",
                "KUBELET_REGISTRAR_DIRECTORY_PATH", "/tmp/node/plugins_registry",
                "KUBELET_PLUGINS_DIRECTORY_PATH", "/tmp/node/plugins", "KUBERNETES_MASTER", "http://127.0.0.1:6443"));
        assertThat(dra.of(Agent.VALIDATOR, 8083)).containsEntry("KGPU_PLUGIN_DEVICE_CLASS", "gpu.nvidia.com");
        assertThat(environment.of(Agent.PLUGIN, 8081)).as("without DRA").doesNotContainKeys("KGPU_KUBELET_APIS", "KUBERNETES_MASTER");
        assertThat(environment.of(Agent.VALIDATOR, 8083)).doesNotContainKey("KGPU_PLUGIN_DEVICE_CLASS");
    }
}
