package dev.kgpu.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * NVIDIA's device plugin and GPU Feature Discovery, built from a {@code NVIDIA/k8s-device-plugin} checkout
 * ({@code deploy/tools/upstream/run-nvidia-agents --benchmark}), run unmodified on the simulated node. As in
 * {@code run-nvidia-agents}, a mount namespace of their own (bubblewrap here) shows them the node's files at the
 * fixed paths they read: {@code /proc/driver}, {@code /sys/bus/pci/devices} and
 * {@code /var/lib/kubelet/device-plugins}; the mock NVML comes from the node's driver root through
 * {@code LD_LIBRARY_PATH}. Nothing outside that namespace changes.
 *
 * @param bin     the folder holding {@code nvidia-device-plugin} and {@code gpu-feature-discovery}
 * @param version what they were built from, e.g. {@code v0.17.4, go1.23.5}
 */
record NvidiaAgents(Path bin, String version) implements Subject {

    static final String PLUGIN = "nvidia-device-plugin";
    static final String GFD = "gpu-feature-discovery";

    NvidiaAgents {
        for (String program : List.of(PLUGIN, GFD)) {
            if (!Files.isExecutable(bin.resolve(program))) {
                throw new BenchmarkException("--nvidia-bin was '" + bin + "' but it has no " + program
                        + " (deploy/tools/upstream/run-nvidia-agents builds both)");
            }
        }
    }

    @Override
    public String name() {
        return "NVIDIA " + version.split(",")[0].strip();
    }

    @Override
    public String describe() {
        return "NVIDIA's " + PLUGIN + " and " + GFD + " " + version + " from " + bin;
    }

    @Override
    public boolean runs(Role role) {
        // dcgm-exporter is not built here; gpu-operator's validator checks the driver with nvidia-smi, which no simulated node has
        return role != Role.EXPORTER && role != Role.VALIDATOR_DRIVER;
    }

    @Override
    public List<Path> files(Role role) {
        return List.of(bin.resolve(role == Role.PLUGIN ? PLUGIN : GFD));
    }

    @Override
    public boolean labelsOnNode() {
        return false;
    }

    @Override
    public AgentRun.Launch launch(Role role, BenchNode node, int port, Path labelsFile) {
        String root = node.root().toString();
        List<String> command = new ArrayList<>(List.of("bwrap", "--die-with-parent", "--dev-bind", "/", "/",
                "--bind", root + "/proc/driver", "/proc/driver",
                "--bind", root + "/sys/bus/pci/devices", "/sys/bus/pci/devices"));
        if (!Files.isDirectory(Path.of("/var/lib/kubelet/device-plugins"))) {
            command.addAll(List.of("--tmpfs", "/var/lib")); // no kubelet here: an empty /var/lib, in this namespace only
        }
        command.addAll(List.of("--bind", node.layout().devicePlugins().toString(), "/var/lib/kubelet/device-plugins",
                "--clearenv", "--setenv", "PATH", "/usr/bin:/bin",
                "--setenv", "LD_LIBRARY_PATH", node.nvmlLibraryDirectory().toString(),
                "--setenv", "MOCK_NVML_PROFILE", node.profile(),
                "--setenv", "MOCK_NVML_PROFILE_DIR", node.profilesDir().toString(),
                "--setenv", "MOCK_NVML_EVENTS", node.layout().eventsFile().toString(),
                "--setenv", "NODE_NAME", node.nodeName(), "--"));
        String program = role == Role.PLUGIN ? PLUGIN : GFD;
        command.add(bin.resolve(program).toString());
        switch (role) {
            case PLUGIN -> command.addAll(List.of("--mig-strategy=none", "--fail-on-init-error=true",
                    "--container-driver-root=" + root, "--driver-root=" + root,
                    "--kubelet-socket=/var/lib/kubelet/device-plugins/kubelet.sock"));
            case DISCOVERY_ONESHOT, DISCOVERY_DAEMON -> {
                command.addAll(List.of("--mig-strategy=none", "--fail-on-init-error=true", "--container-driver-root=" + root,
                        "--machine-type-file=" + node.layout().machineTypeFile(), "--output-file=" + labelsFile));
                command.add(role == Role.DISCOVERY_ONESHOT ? "--oneshot" : "--sleep-interval=60s");
            }
            default -> throw new IllegalArgumentException("NVIDIA's agents have no " + role.label());
        }
        return new AgentRun.Launch(command, program);
    }
}
