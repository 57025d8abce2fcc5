package dev.kgpu.discovery.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.Reload;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.agent.testing.Precedence.Binding;
import dev.kgpu.agent.testing.Precedence.Candidate;
import dev.kgpu.agent.testing.Precedence;
import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.DeviceDiscoveryStrategy;
import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.config.v1.SleepInterval;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FeatureDiscoveryConfigTest {

    /** Every load needs a node name, since the default sink publishes to the API server. */
    static final Map<String, String> NODE = Map.of("NODE_NAME", "gpu-node-1");

    @TempDir
    Path dir;

    static Candidate c(String text, Object value) {
        return new Candidate(text, text, value);
    }

    static Binding<FeatureDiscoveryConfig> bind(String flag, String env, String path, Object defaultValue,
                                                Function<FeatureDiscoveryConfig, Object> get, Candidate... candidates) {
        return new Binding<>("--" + flag + " > " + env + " > " + (path == null ? "(no file field)" : path) + " > default",
                flag, env, path, defaultValue, get, List.of(candidates));
    }

    static Stream<Binding<FeatureDiscoveryConfig>> bindings() {
        return Stream.of(
                bind("mig-strategy", "GFD_MIG_STRATEGY", "flags.migStrategy", MigStrategy.NONE,
                        f -> f.config().flags().migStrategy(),
                        c("single", MigStrategy.SINGLE), c("mixed", MigStrategy.MIXED), c("none", MigStrategy.NONE)),
                bind("mig-strategy", "MIG_STRATEGY", "flags.migStrategy", MigStrategy.NONE,
                        f -> f.config().flags().migStrategy(), c("single", MigStrategy.SINGLE), c("mixed", MigStrategy.MIXED)),
                bind("fail-on-init-error", "GFD_FAIL_ON_INIT_ERROR", "flags.failOnInitError", true,
                        f -> f.config().flags().failOnInitError(), c("false", false), c("true", true)),
                bind("fail-on-init-error", "FAIL_ON_INIT_ERROR", "flags.failOnInitError", true,
                        f -> f.config().flags().failOnInitError(), c("false", false), c("true", true)),
                bind("oneshot", "GFD_ONESHOT", "flags.gfd.oneshot", false, f -> f.gfd().oneshot(),
                        c("true", true), c("false", false)),
                bind("no-timestamp", "GFD_NO_TIMESTAMP", "flags.gfd.noTimestamp", false, f -> f.gfd().noTimestamp(),
                        c("true", true), c("false", false)),
                bind("sleep-interval", "GFD_SLEEP_INTERVAL", "flags.gfd.sleepInterval", SleepInterval.DEFAULT,
                        f -> f.gfd().sleepInterval(),
                        c("30s", new SleepInterval.Every(Duration.ofSeconds(30))), c("infinite", new SleepInterval.Infinite()),
                        c("1m30s", new SleepInterval.Every(Duration.ofSeconds(90)))),
                bind("output-file", "GFD_OUTPUT_FILE", "flags.gfd.outputFile",
                        "/etc/kubernetes/node-feature-discovery/features.d/gfd", f -> f.gfd().outputFile(),
                        c("/out/a", "/out/a"), c("/out/b", "/out/b")),
                bind("machine-type-file", "GFD_MACHINE_TYPE_FILE", "flags.gfd.machineTypeFile",
                        "/sys/class/dmi/id/product_name", f -> f.gfd().machineTypeFile(),
                        c("/m/a", "/m/a"), c("/m/b", "/m/b")),
                bind("use-node-feature-api", "GFD_USE_NODE_FEATURE_API", "flags.useNodeFeatureAPI", true,
                        f -> f.config().flags().useNodeFeatureAPI(), c("false", false), c("true", true)),
                bind("use-node-feature-api", "USE_NODE_FEATURE_API", "flags.useNodeFeatureAPI", true,
                        f -> f.config().flags().useNodeFeatureAPI(), c("false", false), c("true", true)),
                bind("device-discovery-strategy", "DEVICE_DISCOVERY_STRATEGY", "flags.deviceDiscoveryStrategy",
                        DeviceDiscoveryStrategy.AUTO, f -> f.config().flags().deviceDiscoveryStrategy(),
                        c("vfio", DeviceDiscoveryStrategy.VFIO), c("tegra", DeviceDiscoveryStrategy.TEGRA)),
                bind("driver-root-ctr-path", "DRIVER_ROOT_CTR_PATH", "flags.plugin.containerDriverRoot", "/driver-root",
                        f -> f.config().flags().plugin().containerDriverRoot(), c("/c1", "/c1"), c("/c2", "/c2")),
                bind("namespace", "NAMESPACE", null, "default", FeatureDiscoveryConfig::namespace,
                        c("gpu-operator", "gpu-operator"), c("kube-system", "kube-system")),
                bind("pod-name", "POD_NAME", null, Optional.empty(), FeatureDiscoveryConfig::podName,
                        c("gfd-abcde", Optional.of("gfd-abcde")), c("gfd-fghij", Optional.of("gfd-fghij"))),
                bind("kube-api-qps", "KUBE_API_QPS", null, 5.0, FeatureDiscoveryConfig::kubeApiQps,
                        c("20", 20.0), c("2.5", 2.5)),
                bind("kube-api-burst", "KUBE_API_BURST", null, 10, FeatureDiscoveryConfig::kubeApiBurst,
                        c("40", 40), c("1", 1)),
                bind("kubeconfig", "KUBECONFIG", null, Optional.empty(), FeatureDiscoveryConfig::kubeconfig,
                        c("/root/.kube/config", Optional.of(Path.of("/root/.kube/config")))),
                bind("label-sink", "KGPU_LABEL_SINK", null, LabelSinkKind.AUTO, FeatureDiscoveryConfig::labelSink,
                        c("node", LabelSinkKind.NODE), c("nodefeature", LabelSinkKind.NODE_FEATURE), c("file", LabelSinkKind.FILE)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bindings")
    void flagBeatsEnvironmentBeatsFileBeatsDefault(Binding<FeatureDiscoveryConfig> binding) {
        Precedence.check(binding, dir, FeatureDiscoveryConfig::load, NODE);
    }

    record Case(String description, List<String> args, Map<String, String> env, String file,
                Consumer<FeatureDiscoveryConfig> check) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Case ok(String description, List<String> args, Map<String, String> env, String file,
                   Consumer<FeatureDiscoveryConfig> check) {
        Map<String, String> withNode = new HashMap<>(NODE);
        withNode.putAll(env);
        return new Case(description, args, withNode, file, check);
    }

    static Stream<Case> accepted() {
        return Stream.of(
                ok("defaults", List.of(), Map.of(), null, f -> {
                    assertThat(f.labelSink()).isEqualTo(LabelSinkKind.AUTO);
                    assertThat(f.labelSink().settled(true)).isEqualTo(LabelSinkKind.NODE_FEATURE);
                    assertThat(f.labelSink().settled(false)).isEqualTo(LabelSinkKind.NODE);
                    assertThat(f.nodeName()).contains("gpu-node-1");
                    assertThat(f.namespace()).isEqualTo("default");
                    assertThat(f.gfd().sleepInterval()).isEqualTo(new SleepInterval.Every(Duration.ofSeconds(60)));
                    assertThat(f.warnings()).isEmpty();
                    assertThat(f.sysfsRoot()).isEqualTo(Path.of("/sys"));
                    assertThat(f.nvml()).isEqualTo(dev.kgpu.nvml.NvmlOptions.defaults());
                }),
                ok("kgpu's sysfs root and NVML library, read once with the rest", List.of(),
                        Map.of("KGPU_SYSFS_ROOT", "/host/sys", "KGPU_NVML_LIBRARY", "/lib/libnvidia-ml.so.1",
                                "NVIDIA_DRIVER_ROOT", "/run/nvidia/driver"), null, f -> {
                            assertThat(f.sysfsRoot()).isEqualTo(Path.of("/host/sys"));
                            assertThat(f.nvml()).isEqualTo(new dev.kgpu.nvml.NvmlOptions(
                                    Optional.of(Path.of("/lib/libnvidia-ml.so.1")), Path.of("/run/nvidia/driver")));
                        }),
                ok("GFD_MIG_STRATEGY wins over MIG_STRATEGY", List.of(),
                        Map.of("MIG_STRATEGY", "mixed", "GFD_MIG_STRATEGY", "single"), null,
                        f -> assertThat(f.config().flags().migStrategy()).isEqualTo(MigStrategy.SINGLE)),
                ok("-o is an alias of --output-file", List.of("-o", "/features/gfd"), Map.of(), null,
                        f -> assertThat(f.gfd().outputFile()).isEqualTo("/features/gfd")),
                ok("--output is an alias of --output-file", List.of("--output=/features/gfd"), Map.of(), null,
                        f -> assertThat(f.gfd().outputFile()).isEqualTo("/features/gfd")),
                ok("the NodeFeature API turned off selects the file sink, as in NVIDIA's GFD", List.of(),
                        Map.of("GFD_USE_NODE_FEATURE_API", "false"), null, f -> {
                            assertThat(f.labelSink()).isEqualTo(LabelSinkKind.FILE);
                            assertThat(f.labelSink().settled(true)).isEqualTo(LabelSinkKind.FILE);
                        }),
                ok("the NodeFeature API turned off in the file selects the file sink", List.of(), Map.of(),
                        "flags:\n  useNodeFeatureAPI: false\n", f -> assertThat(f.labelSink()).isEqualTo(LabelSinkKind.FILE)),
                ok("a named sink wins over the NodeFeature API setting", List.of("--use-node-feature-api=false"),
                        Map.of("KGPU_LABEL_SINK", "node"), null, f -> assertThat(f.labelSink().settled(true)).isEqualTo(LabelSinkKind.NODE)),
                ok("the file sink needs no node name", List.of("--label-sink=file"), Map.of("NODE_NAME", ""), null, f -> {
                    assertThat(f.nodeName()).isEmpty();
                    assertThat(f.labelSink().settled(false)).isEqualTo(LabelSinkKind.FILE);
                }),
                ok("vfio is a discovery strategy of feature discovery", List.of("--device-discovery-strategy=vfio"),
                        Map.of(), null,
                        f -> assertThat(f.config().flags().deviceDiscoveryStrategy()).isEqualTo(DeviceDiscoveryStrategy.VFIO)),
                ok("GFD_CONFIG_FILE is read as the config file", List.of(), Map.of(), "SET-BY-TEST",
                        f -> assertThat(f.config().sharing().strategy()).isEqualTo(SharingStrategy.TIME_SLICING)),
                ok("MPS without its root is fine for discovery, which only labels", List.of(), Map.of(),
                        "sharing:\n  mps:\n    resources:\n    - name: gpu\n      replicas: 3\n",
                        f -> assertThat(f.config().sharing().strategy()).isEqualTo(SharingStrategy.MPS)),
                ok("oneshot and infinite as NVIDIA's Helm chart runs it", List.of("--oneshot", "--sleep-interval=infinite"),
                        Map.of(), null, f -> {
                            assertThat(f.gfd().oneshot()).isTrue();
                            assertThat(f.gfd().sleepInterval()).isEqualTo(new SleepInterval.Infinite());
                        }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("accepted")
    void acceptsNvidiasSpellings(Case test) throws IOException {
        Map<String, String> env = new HashMap<>(test.env());
        if (test.file() != null) {
            Path file = dir.resolve("gfd.yaml");
            Files.writeString(file, test.file().equals("SET-BY-TEST")
                    ? "sharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 3\n" : test.file());
            env.put(test.file().equals("SET-BY-TEST") ? "GFD_CONFIG_FILE" : "CONFIG_FILE", file.toString());
            if (test.file().equals("SET-BY-TEST")) {
                env.put("CONFIG_FILE", dir.resolve("not-this-one.yaml").toString());
            }
        }
        test.check().accept(FeatureDiscoveryConfig.load(test.args().toArray(String[]::new), env::get));
    }

    record Refused(String description, List<String> args, Map<String, String> env, List<String> messages) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Refused> refused() {
        return Stream.of(
                new Refused("no node name for the default sink", List.of(), Map.of(),
                        List.of("NODE_NAME was 'null' but it must name this node (set it from the pod's spec.nodeName)"
                                + " for the auto label sink; only the file sink works without it")),
                new Refused("no node name for the node sink", List.of(), Map.of("KGPU_LABEL_SINK", "node"),
                        List.of("NODE_NAME was 'null' but it must name this node (set it from the pod's spec.nodeName)"
                                + " for the node label sink; only the file sink works without it")),
                new Refused("an unknown sink", List.of(), Map.of("KGPU_LABEL_SINK", "configmap", "NODE_NAME", "n"),
                        List.of("KGPU_LABEL_SINK was 'configmap' but it must be one of auto, node, nodefeature, file")),
                new Refused("the file sink with no file", List.of("--output-file="), Map.of("KGPU_LABEL_SINK", "file"),
                        List.of("--output-file was '' but it must name the feature file for the file label sink")),
                new Refused("a node name that is no Kubernetes name", List.of(), Map.of("NODE_NAME", "GPU Node"),
                        List.of("NODE_NAME was 'GPU Node' but it must be a Kubernetes name: at most 253 lower-case letters,"
                                + " digits, '-' and '.', starting and ending with a letter or digit")),
                new Refused("a bare number for the sleep interval", List.of(), Map.of("GFD_SLEEP_INTERVAL", "60", "NODE_NAME", "n"),
                        List.of("GFD_SLEEP_INTERVAL was '60' but it must be a Go duration such as 60s, 1m30s or 500ms, or"
                                + " 'infinite' (time: missing unit in duration \"60\")")),
                new Refused("a negative sleep interval", List.of(), Map.of("GFD_SLEEP_INTERVAL", "-5s", "NODE_NAME", "n"),
                        List.of("GFD_SLEEP_INTERVAL was '-5s' but it must not be negative: a Go duration such as 60s"
                                + " (0 relabels without pause) or 'infinite'")),
                new Refused("a negative sleep interval flag", List.of("--sleep-interval=-1m30s"), Map.of("NODE_NAME", "n"),
                        List.of("--sleep-interval was '-1m30s' but it must not be negative: a Go duration such as 60s"
                                + " (0 relabels without pause) or 'infinite'")),
                new Refused("a bad boolean for oneshot", List.of("--oneshot=yes"), Map.of("NODE_NAME", "n"),
                        List.of("--oneshot was 'yes' but it must be a boolean: 1, t, T, TRUE, true, True, 0, f, F, FALSE,"
                                + " false or False")),
                new Refused("rate limits that are not positive", List.of("--kube-api-qps=0", "--kube-api-burst=-1"),
                        Map.of("NODE_NAME", "n"),
                        List.of("--kube-api-qps was '0' but it must be a positive number",
                                "--kube-api-burst was '-1' but it must be a positive integer")),
                new Refused("a device plugin flag", List.of("--pass-device-specs"), Map.of("NODE_NAME", "n"),
                        List.of("--pass-device-specs was '' but it is not a flag of feature discovery (see --help)")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void refusesWithOneLineNamingEachBadSetting(Refused test) {
        assertThatThrownBy(() -> FeatureDiscoveryConfig.load(test.args().toArray(String[]::new), test.env()::get))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.failures())
                        .extracting(ValidationFailure::message).containsExactlyElementsOf(test.messages()));
    }

    @Test
    void acceptsTheSleepIntervalsNvidiaAcceptsAndWarnsWhenKgpuWaitsLonger() {
        // Go's time.ParseDuration takes "0" and "0s"; NVIDIA's GFD then relabels without pause
        for (String zero : List.of("0", "0s", "5ns")) {
            FeatureDiscoveryConfig config = FeatureDiscoveryConfig.load(new String[] {"--sleep-interval=" + zero}, NODE::get);
            assertThat(((SleepInterval.Every) config.gfd().sleepInterval()).effective()).isEqualTo(SleepInterval.SHORTEST);
            assertThat(config.warnings()).extracting(ConfigWarning::toString).containsExactly("--sleep-interval: is "
                    + config.gfd().sleepInterval().goString() + ", which NVIDIA's GFD accepts and then relabels without"
                    + " pause (a bare number is nanoseconds); kgpu relabels every 1s");
        }
        FeatureDiscoveryConfig config = FeatureDiscoveryConfig.load(new String[0],
                Map.of("NODE_NAME", "n", "GFD_SLEEP_INTERVAL", "90s")::get);
        assertThat(config.warnings()).isEmpty();
        assertThat(((SleepInterval.Every) config.gfd().sleepInterval()).effective()).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void theDaemonsStartupPagesGoBackUnlessTurnedOffAndABadSwitchIsOneLine() {
        assertThat(FeatureDiscoveryConfig.load(new String[0], NODE::get).releaseStartupPages()).isTrue();
        assertThat(FeatureDiscoveryConfig.load(new String[0],
                Map.of("NODE_NAME", "n", "KGPU_RELEASE_STARTUP_PAGES", "false")::get).releaseStartupPages()).isFalse();
        assertThatThrownBy(() -> FeatureDiscoveryConfig.load(new String[0],
                Map.of("NODE_NAME", "n", "KGPU_RELEASE_STARTUP_PAGES", "off")::get))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("KGPU_RELEASE_STARTUP_PAGES was 'off'")
                .hasMessageNotContaining("\n");
    }

    @Test
    void logsTheEffectiveConfigAsJsonWithoutPluginFlags() {
        String json = FeatureDiscoveryConfig.load(new String[] {"--sleep-interval=90s"}, NODE::get).toJson();
        assertThat(json).contains("\"gfd\": {").contains("\"sleepInterval\": \"1m30s\"").doesNotContain("\"plugin\"");
    }

    @Test
    void helpListsNvidiasFlagsAndKgpusSink() {
        assertThatThrownBy(() -> FeatureDiscoveryConfig.load(new String[] {"--help"}, name -> null))
                .isInstanceOfSatisfying(UsageRequestedException.class, e -> {
                    for (Setting<?> setting : FeatureDiscoveryConfig.SETTINGS) {
                        setting.flags().forEach(flag -> assertThat(e.getMessage()).contains("--" + flag));
                        setting.envs().forEach(env -> assertThat(e.getMessage()).contains(env));
                    }
                    assertThat(e.getMessage()).contains("Flags of feature discovery:");
                });
    }

    @Test
    void aNegativeSleepIntervalInTheConfigFileIsRefusedNamingItsField() throws IOException {
        Path file = dir.resolve("negative.yaml");
        Files.writeString(file, "version: v1\nflags:\n  gfd:\n    sleepInterval: -5s\n");
        Map<String, String> env = new HashMap<>(NODE);
        env.put("CONFIG_FILE", file.toString());

        assertThatThrownBy(() -> FeatureDiscoveryConfig.load(new String[0], env::get))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.failures())
                        .extracting(ValidationFailure::message).containsExactly("flags.gfd.sleepInterval was '-5s' but it"
                                + " must not be negative: a Go duration such as 60s (0 relabels without pause) or 'infinite'"));
    }

    @Test
    void reloadRereadsTheFileKeepingFlagsAndEnvironment() throws IOException {
        Path file = dir.resolve("gfd.yaml");
        Files.writeString(file, "flags:\n  gfd:\n    sleepInterval: 10s\n");
        Map<String, String> env = new HashMap<>(NODE);
        env.put("CONFIG_FILE", file.toString());
        ConfigLoader<FeatureDiscoveryConfig> loader = FeatureDiscoveryConfig.loader(new String[] {"--oneshot=false"}, env::get);
        assertThat(loader.load().gfd().sleepInterval()).isEqualTo(new SleepInterval.Every(Duration.ofSeconds(10)));
        Files.writeString(file, "flags:\n  gfd:\n    sleepInterval: infinite\n");
        assertThat(loader.reload()).isEqualTo(new Reload.Loaded<>(loader.load()));
        assertThat(((Reload.Loaded<FeatureDiscoveryConfig>) loader.reload()).config().gfd().sleepInterval())
                .isEqualTo(new SleepInterval.Infinite());
        Files.writeString(file, "flags:\n  gfd:\n    sleepInterval: soon\n");
        assertThat(loader.reload()).isInstanceOfSatisfying(Reload.Rejected.class, r -> assertThat(r.message())
                .startsWith("invalid configuration: flags.gfd.sleepInterval was 'soon' but it must be a Go duration"));
    }
}
