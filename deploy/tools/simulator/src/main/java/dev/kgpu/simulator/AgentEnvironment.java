package dev.kgpu.simulator;

import dev.kgpu.sim.kubelet.DeviceManagerCheckpoint;
import dev.kgpu.simulator.agents.Agent;
import dev.kgpu.simulator.agents.ValidatorMode;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The environment each agent gets on the simulated node: what its DaemonSet gives it on a real node (the
 * names of NVIDIA's agents, documented in each agent's README), pointed at the simulated node's sockets,
 * files, API server and mock NVML.
 *
 * @param mockLibrary  the mock {@code libnvidia-ml.so.1} ({@code KGPU_NVML_LIBRARY})
 * @param profile      {@code MOCK_NVML_PROFILE}: a profile name or an absolute file path
 * @param nodeName     {@code NODE_NAME}
 * @param namespace    where the agents' objects go ({@code NAMESPACE}): the validator's sample pods
 * @param migStrategy  {@code MIG_STRATEGY} of the plugin, discovery and the validator
 * @param deviceListStrategy {@code DEVICE_LIST_STRATEGY} of the plugin; with a CDI strategy the plugin writes its
 *                     CDI spec into the node's {@code var/run/cdi} and the validator checks the names resolve there
 * @param sampleImage  the validator's CUDA sample image ({@code KGPU_CUDA_SAMPLE_IMAGE}) when the user set one
 * @param apiServer    the simulated API server's URL, which discovery and the validator are given as a Pod's
 *                     in-cluster configuration gives it: an address, no kubeconfig file to parse (the
 *                     kubeconfig in the node's folder is for the user's kubectl)
 * @param layout       the node's sockets and files
 * @param validatorMode how the validator runs
 * @param dra          the plugin also runs its DRA driver ({@code KGPU_KUBELET_APIS=device-plugin,dra}), registering
 *                     in the node's {@code plugins_registry}, writing each claim's CDI spec into {@code var/run/cdi}
 *                     and its ResourceSlices through the API server; the validator's plugin component validates
 *                     through a claim of DeviceClass {@value #DRA_DEVICE_CLASS}
 */
public record AgentEnvironment(Path mockLibrary, String profile, String nodeName, String namespace,
                               String migStrategy, String deviceListStrategy, Optional<String> sampleImage,
                               String apiServer, NodeLayout layout,
                               ValidatorMode validatorMode, boolean dra) {

    /** The DeviceClass the validator's plugin component claims a device of, with DRA: NVIDIA's whole GPUs. */
    public static final String DRA_DEVICE_CLASS = "gpu.nvidia.com";

    /** Collection interval of the exporter on the simulated node (dcgm-exporter's default is 30 s). */
    public static final String EXPORTER_INTERVAL_MS = "2000";

    /** The validator's poll interval (NVIDIA's default 5 s; 1 s keeps the sample pods quick). */
    public static final String VALIDATOR_SLEEP_SECONDS = "1";

    /** The variables of {@code agent}, listening on {@code port}. */
    public Map<String, String> of(Agent agent, int port) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KGPU_NVML_LIBRARY", mockLibrary.toString());
        env.put("MOCK_NVML_PROFILE", profile);
        env.put("MOCK_NVML_EVENTS", layout.eventsFile().toString());
        env.put("NODE_NAME", nodeName);
        env.put("NAMESPACE", namespace);
        switch (agent) {
            case PLUGIN -> {
                env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
                env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
                env.put("KUBELET_SOCKET", layout.kubeletSocket().toString());
                env.put("MIG_STRATEGY", migStrategy);
                env.put("NVIDIA_DEV_ROOT", layout.devRoot().toString());
                env.put("DEVICE_LIST_STRATEGY", deviceListStrategy);
                // the node's driver root, as a DaemonSet mounts the host's at /driver-root (the CDI spec's libraries)
                env.put("NVIDIA_DRIVER_ROOT", layout.driverRoot().toString());
                env.put("CONTAINER_DRIVER_ROOT", layout.driverRoot().toString());
                env.put("KGPU_CDI_SPEC_DIR", layout.cdiSpecDirectory().toString());
                env.put("KGPU_PROC_ROOT", layout.root().toString());
                if (dra) {
                    env.put("KGPU_KUBELET_APIS", "device-plugin,dra");
                    env.put("CDI_ROOT", layout.cdiSpecDirectory().toString());
                    env.put("KUBELET_REGISTRAR_DIRECTORY_PATH", layout.pluginsRegistry().toString());
                    env.put("KUBELET_PLUGINS_DIRECTORY_PATH", layout.kubeletPlugins().toString());
                    // what the device manager allocated, so the DRA driver never prepares a GPU the device plugin gave out
                    env.put("KGPU_POD_RESOURCES_SOCKET", layout.podResourcesSocket().toString());
                    // and the device manager's checkpoint, read while PodResources cannot be
                    env.put("KGPU_DEVICE_MANAGER_CHECKPOINT",
                            layout.devicePlugins().resolve(DeviceManagerCheckpoint.FILE_NAME).toString());
                    putApiServer(env);
                }
            }
            case DISCOVERY -> {
                env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
                env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
                putApiServer(env);
                env.put("KGPU_LABEL_SINK", "node");
                env.put("MIG_STRATEGY", migStrategy);
                env.put("GFD_MACHINE_TYPE_FILE", layout.machineTypeFile().toString());
                env.put("KGPU_SYSFS_ROOT", layout.sysfs().toString());
            }
            case EXPORTER -> {
                env.put("DCGM_EXPORTER_LISTEN", "127.0.0.1:" + port);
                env.put("DCGM_EXPORTER_INTERVAL", EXPORTER_INTERVAL_MS);
                env.put("DCGM_EXPORTER_KUBERNETES", "true");
                env.put("DCGM_POD_RESOURCES_KUBELET_SOCKET", layout.podResourcesSocket().toString());
            }
            case VALIDATOR -> {
                env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
                env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
                putApiServer(env);
                env.put("OUTPUT_DIR", layout.validations().toString());
                env.put("NVIDIA_DEV_ROOT", layout.devRoot().toString());
                env.put("KGPU_SIMULATED_DEVICE_NODES", "true");
                env.put("MIG_STRATEGY", migStrategy);
                env.put("SLEEP_INTERVAL_SECONDS", VALIDATOR_SLEEP_SECONDS);
                env.put("KGPU_VALIDATOR_MODE", validatorMode.value());
                if (cdi()) {
                    env.put("KGPU_CDI_SPEC_DIR", layout.cdiSpecDirectory().toString());
                }
                sampleImage.ifPresent(image -> env.put("KGPU_CUDA_SAMPLE_IMAGE", image));
                if (dra) {
                    env.put("KGPU_PLUGIN_DEVICE_CLASS", DRA_DEVICE_CLASS);
                }
            }
        }
        return env;
    }

    /** Whether the plugin hands out CDI names. */
    boolean cdi() {
        return java.util.Arrays.stream(deviceListStrategy.split(",")).map(String::strip).anyMatch(s -> s.startsWith("cdi-"));
    }

    /** The API server and nothing else: neither a kubeconfig of the user's nor a service account is tried. */
    private void putApiServer(Map<String, String> env) {
        env.put("KUBERNETES_MASTER", apiServer);
        env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
        env.put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
    }
}
