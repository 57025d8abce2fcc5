package dev.kgpu.gpucheck.agents;

import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.smi.NvidiaSmi;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.simulator.agents.AgentLauncher;
import dev.kgpu.simulator.agents.AgentProcess;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What every agent step needs: where things go, how agents start, the node as nvml-ffm and nvidia-smi read
 * it, and the time left.
 *
 * @param work        the check's work folder (sockets, the agents' files), short enough for Unix sockets
 * @param launcher    starts an agent as its image does (the simulated node's launcher)
 * @param http        HTTP/1.1 client for readiness and scrapes
 * @param agentEnv    what every agent gets besides its own settings: {@code KGPU_NVML_LIBRARY}, the mock's
 *                    {@code MOCK_NVML_*} in a mock run
 * @param nvmlHandle  the check's own NVML
 * @param nvml        nvml-ffm's reading of the node
 * @param smi         nvidia-smi, when the machine has one
 * @param smiBefore   nvidia-smi's readings taken so far (the references of moving values)
 * @param deadline    when the whole check must end
 * @param readyTimeout the longest an agent may take to be ready
 * @param started     told of every agent process started (for the shutdown hook and the PID file)
 */
public record CheckContext(Path work, AgentLauncher launcher, HttpClient http, Map<String, String> agentEnv,
                           Nvml nvmlHandle, NodeValues nvml, Optional<NvidiaSmi> smi, List<NodeValues> smiBefore,
                           Deadline deadline, Duration readyTimeout, Consumer<AgentProcess> started) {

    public static final String NODE_NAME = "kgpu-gpu-check";

    /** A fresh copy of the common agent environment, to add an agent's own settings to. */
    public Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>(agentEnv);
        env.put("NODE_NAME", NODE_NAME);
        return env;
    }

    /** The ready timeout, shortened to what is left of the check. */
    public Duration timeoutLeft() {
        return deadline.cap(readyTimeout);
    }
}
