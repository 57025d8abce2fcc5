package dev.kgpu.simulator.upstream;

import dev.kgpu.agent.Startup;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.kgpu.sim.kubelet.DeviceState;
import dev.kgpu.sim.kubelet.KubeletSimulator;
import dev.kgpu.sim.kubelet.PodAdmission;
import dev.kgpu.sim.kubelet.PodSpec;
import dev.kgpu.sim.kubelet.ResourceState;
import dev.kgpu.sim.runtime.SimulatedGpus;
import dev.kgpu.simulator.NodeLayout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

/**
 * The simulated node for NVIDIA's own agents ({@code deploy/tools/upstream/run-nvidia-agents}): lays out the node and
 * its driver root for a mock profile, serves the kubelet's device-plugin API, and once a device plugin has
 * registered, reports what it advertises and what one Allocate per resource returns.
 *
 * <pre>
 * java -cp &lt;simulator class path&gt; dev.kgpu.simulator.upstream.NvidiaAgentsNode &lt;kgpu checkout&gt; &lt;profile&gt; &lt;work dir&gt; &lt;timeout seconds&gt;
 * </pre>
 *
 * <p>Writes {@code <work dir>/kubelet-ready} when the kubelet listens, then {@code <work dir>/plugin-report.txt}
 * once the registrations have been quiet for {@link #SETTLE} (NVIDIA's plugin registers one resource after
 * another and says nowhere how many it will register), and serves until SIGTERM. Exit status 1 when no plugin
 * registered within the timeout.
 */
public final class NvidiaAgentsNode {

    /** How long the set of registered resources must stay the same before it is reported. */
    static final Duration SETTLE = Duration.ofSeconds(3);

    private NvidiaAgentsNode() {
    }

    static final Setting<String> CHECKOUT = Setting.of(List.of("checkout"), List.of(), ValueType.string(), "",
            "the kgpu checkout (its mock NVML)");
    static final Setting<String> PROFILE = Setting.of(List.of("profile"), List.of(), ValueType.string(), "",
            "the mock NVML profile of the node");
    static final Setting<String> WORK_DIR = Setting.of(List.of("work-dir"), List.of(), ValueType.string(), "",
            "the node's folder: kubelet socket, device nodes, the report");
    static final Setting<Integer> TIMEOUT = Setting.of(List.of("timeout"), List.of(), ValueType.positiveInt(), 120,
            "seconds to wait for NVIDIA's plugin to register");

    /** What run-nvidia-agents passes. */
    record Options(Path checkout, String profile, Path workDir, Duration timeout) {
    }

    /** Reads the command line with the agents' shared loader: one line naming a bad flag, or --help. */
    static Startup<Options> options(String[] args) {
        return Startup.load("nvidia-agents-node", () -> new ConfigLoader<>(new ConfigLoader.Agent<>("nvidia-agents-node",
                List.of(CHECKOUT, PROFILE, WORK_DIR, TIMEOUT), resolved -> {
                    for (Setting<String> required : List.of(CHECKOUT, PROFILE, WORK_DIR)) {
                        if (resolved.get(required).isBlank()) {
                            resolved.fail(required, "", "is required");
                        }
                    }
                    return new Options(Path.of(resolved.get(CHECKOUT)).toAbsolutePath(), resolved.get(PROFILE),
                            Path.of(resolved.get(WORK_DIR)).toAbsolutePath(), Duration.ofSeconds(resolved.get(TIMEOUT)));
                }), args, name -> null).load());
    }

    /**
     * {@code NvidiaAgentsNode --checkout=<kgpu checkout> --profile=<profile> --work-dir=<dir> --timeout=<seconds>}
     * (the {@code run-nvidia-agents} script).
     */
    public static void main(String[] args) throws Exception {
        Options options = switch (options(args)) {
            case Startup.Exit<Options> exit -> {
                System.exit(exit.print(System.out, System.err));
                yield null;
            }
            case Startup.Run<Options>(Options read) -> read;
        };
        Path checkout = options.checkout();
        String profile = options.profile();
        Path workDir = options.workDir();
        Duration timeout = options.timeout();

        Path mockLibrary = checkout.resolve("nvml-ffm/nvml/target/mock/libnvidia-ml.so.1");
        SimulatedGpus gpus = SimulatedGpus.read(mockLibrary, profile);
        NodeLayout layout = NodeLayout.create(workDir, gpus, "kgpu-simulated-" + profile);
        try (KubeletSimulator kubelet = KubeletSimulator.start(layout.devicePlugins())) {
            Files.writeString(workDir.resolve("kubelet-ready"), layout.devicePlugins() + "\n");
            System.out.println("nvidia-agents-node: " + gpus.describe() + "; driver root " + layout.driverRoot()
                    + "; kubelet " + kubelet.socket());
            List<ResourceState> settled = awaitSettled(kubelet, timeout);
            if (settled.isEmpty()) {
                System.err.println("nvidia-agents-node: no device plugin registered within " + timeout.toSeconds() + " s");
                System.exit(1);
            }
            String report = report(kubelet, settled);
            Files.writeString(workDir.resolve("plugin-report.txt.tmp"), report);
            Files.move(workDir.resolve("plugin-report.txt.tmp"), workDir.resolve("plugin-report.txt"),
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            System.out.print(report);
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
        } finally {
            layout.removeSockets();
        }
    }

    /** The registered resources once every one has devices and none came or went for {@link #SETTLE}. */
    private static List<ResourceState> awaitSettled(KubeletSimulator kubelet, Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        String last = "";
        Instant stableSince = Instant.now();
        while (Instant.now().isBefore(deadline)) {
            List<ResourceState> resources = kubelet.resources();
            String now = resources.stream().map(r -> r.resourceName() + "=" + r.deviceIds()).toList().toString();
            boolean allListed = !resources.isEmpty() && resources.stream().allMatch(r -> r.capacity() > 0);
            if (!now.equals(last)) {
                last = now;
                stableSince = Instant.now();
            } else if (allListed && Duration.between(stableSince, Instant.now()).compareTo(SETTLE) >= 0) {
                return resources;
            }
            Thread.sleep(100);
        }
        return List.of();
    }

    private static String report(KubeletSimulator kubelet, List<ResourceState> resources) {
        StringBuilder out = new StringBuilder();
        Map<String, ResourceState> byName = new TreeMap<>();
        resources.forEach(r -> byName.put(r.resourceName(), r));
        for (ResourceState resource : byName.values()) {
            out.append("resource ").append(resource.resourceName()).append(": ").append(resource.capacity())
                    .append(" devices, ").append(resource.allocatable()).append(" healthy\n");
            for (DeviceState device : resource.devices()) {
                out.append("  device ").append(device.id()).append(device.healthy() ? " Healthy" : " Unhealthy")
                        .append(device.numaNodes().isEmpty() ? "" : " numa " + device.numaNodes()).append('\n');
            }
            String pod = "probe-" + resource.resourceName().replaceAll("[^a-z0-9]+", "-");
            PodAdmission admission = kubelet.admit(PodSpec.of(pod, resource.resourceName(), 1));
            switch (admission) {
                case PodAdmission.Admitted admitted -> {
                    out.append("  allocate 1: ").append(admitted.allocation().deviceIds(resource.resourceName())).append('\n');
                    ContainerAllocateResponse response = admitted.allocation().container().response();
                    new TreeMap<>(response.getEnvsMap()).forEach((k, v) -> out.append("    env ").append(k).append('=').append(v).append('\n'));
                    new TreeMap<>(response.getAnnotationsMap()).forEach((k, v) -> out.append("    annotation ").append(k).append('=').append(v).append('\n'));
                    response.getMountsList().forEach(m -> out.append("    mount ").append(m.getHostPath()).append(" -> ").append(m.getContainerPath()).append('\n'));
                    response.getDevicesList().forEach(d -> out.append("    device ").append(d.getHostPath()).append(" -> ").append(d.getContainerPath()).append('\n'));
                    response.getCdiDevicesList().forEach(d -> out.append("    cdi ").append(d.getName()).append('\n'));
                    kubelet.release(pod);
                }
                case PodAdmission.Pending pending -> out.append("  allocate 1: pending, ").append(pending.reason()).append('\n');
                case PodAdmission.Failed failed -> out.append("  allocate 1: failed, ").append(failed.reason()).append(": ")
                        .append(failed.message()).append('\n');
            }
        }
        return out.toString();
    }
}
