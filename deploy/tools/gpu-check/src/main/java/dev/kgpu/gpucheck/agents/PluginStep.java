package dev.kgpu.gpucheck.agents;

import dev.kgpu.gpucheck.compare.Compare;
import dev.kgpu.gpucheck.compare.Finding;
import dev.kgpu.gpucheck.compare.Agreement;
import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.report.StepResult;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.HealthMonitor;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodSpec;
import dev.kgpu.sim.kubelet.RegistrationEvent;
import dev.kgpu.sim.kubelet.ResourceState;
import dev.kgpu.simulator.agents.Agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The device plugin against the kubelet simulator on this machine's GPUs: it registers
 * {@code nvidia.com/gpu}, ListAndWatch lists exactly the GPUs' UUIDs, all Healthy; a pod asking for every
 * GPU is admitted and Allocate hands it those UUIDs; NVML registers every GPU for health events (the
 * plugin's own watch, seen in its log, and the same registration made here through nvml-ffm); no GPU
 * turned Unhealthy meanwhile. No XID is injected.
 */
public final class PluginStep {

    public static final String STEP = "plugin";
    public static final String RESOURCE = "nvidia.com/gpu";

    private PluginStep() {
    }

    public static StepOutcome run(CheckContext c) {
        List<Finding> findings = new ArrayList<>();
        Compare compare = new Compare(STEP, "node", "nvml-ffm");
        List<String> uuids = c.nvml().gpus().stream().map(NodeValues.GpuValues::uuid).toList();
        Set<String> expected = new TreeSet<>(uuids);
        AgentSession session = null;
        try (KubeletSimulator kubelet = KubeletSimulator.start(c.work().resolve("device-plugins"))) {
            Map<String, String> env = c.environment();
            int port = AgentSession.freePort();
            env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
            env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
            env.put("KUBELET_SOCKET", kubelet.socket().toString());
            env.put("MIG_STRATEGY", "none");
            session = new AgentSession(c, Agent.PLUGIN, "registered with the kubelet", port, env);
            session.awaitReady();

            List<RegistrationEvent> registrations = kubelet.registrations();
            findings.add(compare.decided("Register", registrations.stream()
                            .map(r -> r.resourceName() + (r.accepted() ? " accepted" : " refused: " + r.error().orElse(""))).toList().toString(),
                    RESOURCE + " accepted", "the kubelet accepted one registration of " + RESOURCE,
                    registrations.stream().anyMatch(r -> r.accepted() && r.resourceName().equals(RESOURCE)) ? Agreement.MATCH : Agreement.MISMATCH, ""));

            ResourceState state = kubelet.awaitResource(RESOURCE, s -> s.connected() && s.capacity() >= uuids.size(), c.timeoutLeft());
            findings.add(compare.decided("ListAndWatch devices", new TreeSet<>(state.deviceIds()).toString(), expected.toString(),
                    "the same UUIDs", new TreeSet<>(state.deviceIds()).equals(expected) ? Agreement.MATCH : Agreement.MISMATCH, ""));
            findings.add(compare.decided("ListAndWatch health", state.healthyIds().size() + " of " + state.capacity() + " Healthy",
                    "all Healthy", "every device Healthy", state.unhealthyIds().isEmpty() ? Agreement.MATCH : Agreement.MISMATCH,
                    state.unhealthyIds().isEmpty() ? "" : "Unhealthy: " + state.unhealthyIds()));
            c.smi().ifPresent(smi -> c.smiBefore().stream().findFirst().ifPresent(before ->
                    findings.add(new Compare(STEP, "node", "nvidia-smi").decided("ListAndWatch count", Long.toString(state.capacity()),
                            Integer.toString(before.gpus().size()), "one device per GPU nvidia-smi lists",
                            state.capacity() == before.gpus().size() ? Agreement.MATCH : Agreement.MISMATCH, ""))));

            findings.add(allocate(kubelet, uuids, compare));
            findings.addAll(healthEvents(c, session, compare));

            ResourceState after = kubelet.resource(RESOURCE).orElse(state);
            findings.add(compare.decided("health at the end", after.healthyIds().size() + " of " + after.capacity() + " Healthy",
                    "all Healthy", "no GPU turned Unhealthy during the check", after.unhealthyIds().isEmpty() && after.connected()
                            ? Agreement.MATCH : Agreement.MISMATCH, after.connected() ? "" : "the ListAndWatch stream ended"));
            return AgentSession.end(findings, session, StepResult.Status.RAN, "registered " + RESOURCE + " with " + state.capacity()
                    + " devices; Allocate of all of them answered");
        } catch (RuntimeException e) {
            return AgentSession.end(findings, session, StepResult.Status.FAILED, e.getMessage());
        }
    }

    private static Finding allocate(KubeletSimulator kubelet, List<String> uuids, Compare compare) {
        PodAdmission admission = kubelet.admit(PodSpec.of("gpu-check", RESOURCE, uuids.size()));
        try {
            if (!(admission instanceof PodAdmission.Admitted admitted)) {
                return compare.decided("Allocate", admission.toString(), "admitted with every GPU", "a pod asking for every GPU",
                        Agreement.MISMATCH, "");
            }
            Set<String> given = new TreeSet<>(admitted.allocation().deviceIds(RESOURCE));
            String visible = admitted.allocation().container().envs().getOrDefault("NVIDIA_VISIBLE_DEVICES", "(unset)");
            Set<String> visibleSet = new TreeSet<>(List.of(visible.split(",")));
            boolean ok = given.equals(new TreeSet<>(uuids)) && visibleSet.equals(given);
            return compare.decided("Allocate", "devices " + given + ", NVIDIA_VISIBLE_DEVICES=" + visible,
                    new TreeSet<>(uuids).toString(), "every GPU, named by UUID in NVIDIA_VISIBLE_DEVICES",
                    ok ? Agreement.MATCH : Agreement.MISMATCH, "");
        } finally {
            kubelet.release("gpu-check");
        }
    }

    /**
     * Health-event registration: the plugin logs a warning for each GPU NVML would not register (and an error
     * when the watch failed); the same registration through nvml-ffm here says how many GPUs are watched.
     */
    private static List<Finding> healthEvents(CheckContext c, AgentSession session, Compare compare) {
        List<Finding> findings = new ArrayList<>();
        List<String> complaints;
        try {
            complaints = Files.readAllLines(session.process().log(), StandardCharsets.UTF_8).stream()
                    .filter(l -> l.contains("reports no health events") || l.contains("could not watch health events"))
                    .toList();
        } catch (IOException e) {
            complaints = List.of("log unreadable: " + e.getMessage());
        }
        findings.add(compare.decided("plugin's health-event watch", complaints.isEmpty() ? "no complaint in its log" : String.join(" / ", complaints),
                "every GPU watched", "no 'reports no health events' or 'could not watch health events' in the plugin's log",
                complaints.isEmpty() ? Agreement.MATCH : Agreement.MISMATCH, ""));
        List<GpuDevice> devices = c.nvmlHandle().devices();
        List<Object> events = new CopyOnWriteArrayList<>();
        try (HealthMonitor monitor = c.nvmlHandle().startHealthMonitor(devices, events::add)) {
            List<String> unmonitored = monitor.unmonitoredDevices().stream().map(GpuDevice::uuid).toList();
            boolean running = monitor.running();
            findings.add(compare.decided("nvmlDeviceRegisterEvents (XID, ECC)",
                    (devices.size() - unmonitored.size()) + " of " + devices.size() + " GPUs registered" + (running ? "" : ", watch not running"),
                    devices.size() + " of " + devices.size(), "every GPU registered on one event set, the watch thread running",
                    unmonitored.isEmpty() && running ? Agreement.MATCH : Agreement.MISMATCH,
                    unmonitored.isEmpty() ? "" : "not registered: " + unmonitored));
        }
        return findings;
    }
}
