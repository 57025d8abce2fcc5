package dev.kgpu.plugin.settings;

import dev.kgpu.config.ConfigException;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Loading the settings as the entry point does, without exiting the JVM: a bad setting means exit status 1
 * and one line that names the field and the bad value; every bad setting is on that line.
 */
class PluginSettingsTest {

    @TempDir
    Path dir;

    record Case(String description, String configFile, Map<String, String> env, List<String> flags, String expected) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Case> badConfigurations() {
        return Stream.of(
                new Case("unknown version", "version: v2\n", Map.of(), List.of(), "version was 'v2'"),
                new Case("unknown MIG strategy in the file", "version: v1\nflags:\n  migStrategy: some\n", Map.of(), List.of(),
                        "flags.migStrategy was 'some'"),
                new Case("unknown device list strategy from the environment", null,
                        Map.of("DEVICE_LIST_STRATEGY", "envvars"), List.of(), "DEVICE_LIST_STRATEGY was 'envvars'"),
                new Case("unknown ID strategy from a flag", null, Map.of(), List.of("--device-id-strategy=serial"),
                        "--device-id-strategy was 'serial'"),
                new Case("replicas below 2", """
                        version: v1
                        sharing:
                          timeSlicing:
                            resources:
                            - name: nvidia.com/gpu
                              replicas: 1
                        """, Map.of(), List.of(), "sharing.timeSlicing.resources[0].replicas was '1'"),
                new Case("MPS with mixed MIG", """
                        version: v1
                        flags:
                          migStrategy: mixed
                          mpsRoot: /run/nvidia/mps
                        sharing:
                          mps:
                            resources:
                            - name: nvidia.com/gpu
                              replicas: 2
                        """, Map.of(), List.of(), "flags.migStrategy was 'mixed'"),
                new Case("a file that is not YAML", "version: v1\nflags: [\n", Map.of(), List.of(), "config"),
                new Case("a malformed DP_DISABLE_HEALTHCHECKS", null, Map.of("DP_DISABLE_HEALTHCHECKS", "48,x"), List.of(),
                        "DP_DISABLE_HEALTHCHECKS was '48,x'"),
                new Case("a malformed quiet period", null, Map.of("KGPU_HEALTH_QUIET_PERIOD", "5 minutes"), List.of(),
                        "KGPU_HEALTH_QUIET_PERIOD was '5 minutes'"),
                new Case("a missing config file", null, Map.of("CONFIG_FILE", "/nonexistent/config.yaml"), List.of(),
                        "/nonexistent/config.yaml"),
                new Case("an unknown kubelet API", null, Map.of("KGPU_KUBELET_APIS", "device-plugin,csi"), List.of(),
                        "KGPU_KUBELET_APIS was 'device-plugin,csi' but it must list only device-plugin, dra, but lists 'csi'"),
                new Case("DRA without the node's name", null, Map.of("KGPU_KUBELET_APIS", "dra"), List.of(),
                        "NODE_NAME was '' but it must name this node when KGPU_KUBELET_APIS lists dra"),
                new Case("a node name that is no Kubernetes name", null, Map.of(), List.of("--kubelet-apis=dra", "--node-name=GPU_Node"),
                        "--node-name was 'GPU_Node'"),
                new Case("a relative CDI root", null, Map.of("CDI_ROOT", "cdi"), List.of(), "CDI_ROOT was 'cdi'"),
                new Case("a start-up pages switch that is no boolean", null, Map.of("KGPU_RELEASE_STARTUP_PAGES", "no"),
                        List.of(), "KGPU_RELEASE_STARTUP_PAGES was 'no'"),
                new Case("a malformed list of XIDs to ignore", null, Map.of(), List.of("--additional-xids-to-ignore=48,x"),
                        "--additional-xids-to-ignore was '48,x' but it must be a comma-separated list of XID numbers"),
                new Case("a check interval shorter than a second", null, Map.of("KGPU_HEALTH_CHECK_INTERVAL", "1ns"),
                        List.of(), "KGPU_HEALTH_CHECK_INTERVAL was '1ns' but it must be at least 1s (a shorter one would"
                                + " probe NVML in a near-busy loop)"),
                new Case("a quiet period shorter than a second", null, Map.of("KGPU_HEALTH_QUIET_PERIOD", "10ms"),
                        List.of(), "KGPU_HEALTH_QUIET_PERIOD was '10ms' but it must be at least 1s, or 0 to turn it off"),
                new Case("a kubelet socket longer than a Unix socket path", null,
                        Map.of("KUBELET_SOCKET", "/" + "k".repeat(100) + "/kubelet.sock"), List.of(),
                        "but it must be a path of at most 107 bytes, the most a Unix socket's path may have (it has 114)"),
                new Case("a kubelet socket whose folder leaves no room for the plugin's sockets", null,
                        Map.of("KUBELET_SOCKET", "/" + "k".repeat(92) + "/k.sock"), List.of(),
                        "but it must be in a folder whose path leaves room for the plugin's own sockets, such as"
                                + " nvidia-gpu.sock, within the 107 bytes a Unix socket's path may have (that one would have 109)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badConfigurations")
    void badConfigurationsExitWithOneLineNamingTheField(Case bad) throws IOException {
        Map<String, String> env = new HashMap<>(bad.env());
        if (bad.configFile() != null) {
            Path file = dir.resolve("config.yaml");
            Files.writeString(file, bad.configFile());
            env.put("CONFIG_FILE", file.toString());
        }

        assertThatThrownBy(() -> PluginSettings.load(bad.flags().toArray(String[]::new), env::get))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> {
                    assertThat(e.exitCode()).isEqualTo(1);
                    assertThat(e.getMessage()).doesNotContain("\n").contains(bad.expected());
                });
    }

    @Test
    void everyBadSettingIsNamedOnTheSameLine() {
        assertThatThrownBy(() -> PluginSettings.load(new String[]{"--mig-strategy=some"},
                Map.of("KGPU_HEALTH_RECOVERABLE_XIDS", "48,seventy-nine")::get))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.getMessage())
                        .doesNotContain("\n")
                        .contains("--mig-strategy was 'some'")
                        .contains("KGPU_HEALTH_RECOVERABLE_XIDS was '48,seventy-nine'"));
    }

    @Test
    void blankKgpuVariablesMeanTheirDefaultsAndNvmlIsFoundUnderTheDriverRootSetAnywhere() throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, "version: v1\nflags:\n  nvidiaDriverRoot: /run/nvidia/driver\n");

        PluginSettings settings = PluginSettings.load(new String[]{"--config-file=" + file},
                Map.of("KGPU_HEALTH_QUIET_PERIOD", "", "KGPU_HEALTH_RECOVERABLE_XIDS", "", "KGPU_HEALTH_CHECK_INTERVAL", " ")::get);

        assertThat(settings.node().health().quietPeriod()).hasMinutes(1);
        assertThat(settings.node().health().recoverableXids()).isEmpty();
        assertThat(settings.node().healthCheckInterval()).hasSeconds(5);
        assertThat(settings.node().nvml().driverRoot()).isEqualTo(Path.of("/run/nvidia/driver"));
        assertThat(settings.node().nvml().library()).isEmpty();
    }

    @Test
    void theDraDriverRunsBesideTheDevicePluginOrAloneWithNvidiasFolders() {
        PluginSettings plain = PluginSettings.load(new String[0], Map.<String, String>of()::get);
        assertThat(plain.devicePlugin()).isPresent();
        assertThat(plain.dra()).isEmpty();

        PluginSettings both = PluginSettings.load(new String[]{"--kubelet-apis=device-plugin,dra"},
                Map.of("NODE_NAME", "gpu-node-7", "CDI_ROOT", "/var/run/cdi")::get);
        assertThat(both.devicePlugin()).isPresent();
        assertThat(both.dra()).hasValueSatisfying(dra -> {
            assertThat(dra.nodeName()).isEqualTo("gpu-node-7");
            assertThat(dra.cdiRoot()).isEqualTo(Path.of("/var/run/cdi"));
            assertThat(dra.registrationSocket()).isEqualTo(Path.of("/var/lib/kubelet/plugins_registry/gpu.nvidia.com-reg.sock"));
            assertThat(dra.serviceSocket()).isEqualTo(Path.of("/var/lib/kubelet/plugins/gpu.nvidia.com/dra.sock"));
            assertThat(dra.checkpointFile()).isEqualTo(Path.of("/var/lib/kubelet/plugins/gpu.nvidia.com/kgpu-checkpoint.json"));
            assertThat(dra.cdi().driverRoot()).isEqualTo(Path.of("/driver-root"));
        });

        PluginSettings alone = PluginSettings.load(new String[]{"--node-name", "n1", "--kubelet-plugins-directory-path=/k/plugins"},
                Map.of("KGPU_KUBELET_APIS", "dra", "KUBELET_REGISTRAR_DIRECTORY_PATH", "/k/registry")::get);
        assertThat(alone.devicePlugin()).isEmpty();
        assertThat(alone.dra().orElseThrow().serviceSocket()).isEqualTo(Path.of("/k/plugins/gpu.nvidia.com/dra.sock"));
        assertThat(alone.dra().orElseThrow().registrationSocket()).isEqualTo(Path.of("/k/registry/gpu.nvidia.com-reg.sock"));
        assertThat(alone.dra().orElseThrow().cdiRoot()).as("NVIDIA's default").isEqualTo(Path.of("/etc/cdi"));
    }

    @Test
    void theStartupPagesGoBackUnlessTurnedOff() {
        assertThat(PluginSettings.load(new String[0], Map.<String, String>of()::get).releaseStartupPages()).isTrue();
        assertThat(PluginSettings.load(new String[0], Map.of("KGPU_RELEASE_STARTUP_PAGES", "false")::get)
                .releaseStartupPages()).isFalse();
    }

    @Test
    void helpPrintsUsageAndExitsZero() {
        assertThatThrownBy(() -> PluginSettings.load(new String[]{"--help"}, Map.<String, String>of()::get))
                .isInstanceOfSatisfying(UsageRequestedException.class, usage -> {
                    assertThat(((ConfigException) usage).exitCode()).isZero();
                    assertThat(usage.getMessage()).contains("--mig-strategy").contains("MIG_STRATEGY")
                            .contains("KGPU_HEALTH_QUIET_PERIOD").contains("KGPU_NVML_LIBRARY");
                });
    }

    @Test
    void nvidiasDraDriverIgnoresTheXidsItListsOnTopOfDpDisableHealthchecksUnlessReEnabled() {
        PluginSettings settings = PluginSettings.load(new String[0], Map.of("ADDITIONAL_XIDS_TO_IGNORE", "48, 63",
                "DP_DISABLE_HEALTHCHECKS", "94", "DP_ENABLE_HEALTHCHECKS", "63")::get);

        assertThat(settings.node().health().isCritical(48)).isFalse();
        assertThat(settings.node().health().isCritical(94)).isFalse();
        assertThat(settings.node().health().isCritical(63)).as("DP_ENABLE_HEALTHCHECKS wins").isTrue();
        assertThat(settings.node().health().isCritical(79)).isTrue();
        assertThat(PluginSettings.load(new String[0], Map.<String, String>of()::get).node().health().isCritical(48)).isTrue();
    }

    @Test
    void aGoodConfigurationRuns() throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, "version: v1\nflags:\n  migStrategy: mixed\n");

        PluginSettings settings = PluginSettings.load(new String[]{"--config-file", file.toString()},
                Map.of("KGPU_HEALTH_QUIET_PERIOD", "30s", "KGPU_HEALTH_RECOVERABLE_XIDS", "48",
                        "DP_DISABLE_HEALTHCHECKS", "94", "KUBELET_SOCKET", "/run/kubelet/kubelet.sock")::get);

        assertThat(settings.description()).contains("\"migStrategy\": \"mixed\"");
        assertThat(settings.node().health().quietPeriod()).hasSeconds(30);
        assertThat(settings.node().health().recoverableXids()).containsExactly(48L);
        assertThat(settings.node().health().isCritical(94)).isFalse();
        assertThat(settings.node().healthCheckInterval()).hasSeconds(5);
        assertThat(settings.devicePlugin().orElseThrow().kubeletSocket()).contains(Path.of("/run/kubelet/kubelet.sock"));
        assertThat(settings.node().nvml().driverRoot()).isEqualTo(Path.of("/"));
        assertThat(settings.devicePlugin().orElseThrow().socketDirectory()).isEqualTo(Path.of("/run/kubelet"));
    }
}
