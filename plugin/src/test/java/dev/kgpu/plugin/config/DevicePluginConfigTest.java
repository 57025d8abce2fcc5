package dev.kgpu.plugin.config;

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
import dev.kgpu.config.v1.AllocationPolicy;
import dev.kgpu.config.v1.Config;
import dev.kgpu.config.v1.DeviceDiscoveryStrategy;
import dev.kgpu.config.v1.DeviceIdStrategy;
import dev.kgpu.config.v1.DeviceListStrategy;
import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.plugin.health.HealthChecks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DevicePluginConfigTest {

    @TempDir
    Path dir;

    static Candidate c(String text, Object value) {
        return new Candidate(text, text, value);
    }

    static Candidate c(String text, String yaml, Object value) {
        return new Candidate(text, yaml, value);
    }

    static List<Candidate> booleans() {
        return List.of(c("true", true), c("false", false));
    }

    static Binding<DevicePluginConfig> bind(String flag, String env, String path, Object defaultValue,
                                            Function<DevicePluginConfig, Object> get, Candidate... candidates) {
        return new Binding<>("--" + flag + " > " + env + " > " + (path == null ? "(no file field)" : path) + " > default",
                flag, env, path, defaultValue, get, List.of(candidates));
    }

    static Stream<Binding<DevicePluginConfig>> bindings() {
        return Stream.of(
                bind("mig-strategy", "MIG_STRATEGY", "flags.migStrategy", MigStrategy.NONE,
                        d -> d.config().flags().migStrategy(),
                        c("single", MigStrategy.SINGLE), c("mixed", MigStrategy.MIXED), c("none", MigStrategy.NONE)),
                bind("fail-on-init-error", "FAIL_ON_INIT_ERROR", "flags.failOnInitError", true,
                        d -> d.config().flags().failOnInitError(), c("false", false), c("true", true)),
                bind("driver-root", "NVIDIA_DRIVER_ROOT", "flags.nvidiaDriverRoot", "/",
                        d -> d.config().flags().nvidiaDriverRoot(),
                        c("/run/nvidia/driver", "/run/nvidia/driver"), c("/a", "/a"), c("/b", "/b")),
                bind("dev-root", "NVIDIA_DEV_ROOT", "flags.nvidiaDevRoot", "/",
                        d -> d.config().flags().nvidiaDevRoot(), c("/dev1", "/dev1"), c("/dev2", "/dev2"), c("/dev3", "/dev3")),
                bind("pass-device-specs", "PASS_DEVICE_SPECS", "flags.plugin.passDeviceSpecs", false,
                        d -> d.config().flags().plugin().passDeviceSpecs(), booleans().toArray(Candidate[]::new)),
                bind("device-list-strategy", "DEVICE_LIST_STRATEGY", "flags.plugin.deviceListStrategy",
                        Set.of(DeviceListStrategy.ENVVAR), d -> d.config().flags().plugin().deviceListStrategy(),
                        c("envvar", Set.of(DeviceListStrategy.ENVVAR)),
                        c("volume-mounts,cdi-cri", "[volume-mounts, cdi-cri]",
                                Set.of(DeviceListStrategy.VOLUME_MOUNTS, DeviceListStrategy.CDI_CRI)),
                        c("cdi-annotations", Set.of(DeviceListStrategy.CDI_ANNOTATIONS))),
                bind("device-id-strategy", "DEVICE_ID_STRATEGY", "flags.plugin.deviceIDStrategy", DeviceIdStrategy.UUID,
                        d -> d.config().flags().plugin().deviceIDStrategy(),
                        c("index", DeviceIdStrategy.INDEX), c("uuid", DeviceIdStrategy.UUID)),
                bind("gdrcopy-enabled", "GDRCOPY_ENABLED", "flags.gdrcopyEnabled", false,
                        d -> d.config().flags().gdrcopyEnabled(), booleans().toArray(Candidate[]::new)),
                bind("gds-enabled", "GDS_ENABLED", "flags.gdsEnabled", false,
                        d -> d.config().flags().gdsEnabled(), booleans().toArray(Candidate[]::new)),
                bind("mofed-enabled", "MOFED_ENABLED", "flags.mofedEnabled", false,
                        d -> d.config().flags().mofedEnabled(), booleans().toArray(Candidate[]::new)),
                bind("cdi-annotation-prefix", "CDI_ANNOTATION_PREFIX", "flags.plugin.cdiAnnotationPrefix", "cdi.k8s.io/",
                        d -> d.config().flags().plugin().cdiAnnotationPrefix(),
                        c("a.example.com/", "a.example.com/"), c("b.example.com/", "b.example.com/"), c("cdi.k8s.io/", "cdi.k8s.io/")),
                bind("nvidia-cdi-hook-path", "NVIDIA_CDI_HOOK_PATH", "flags.plugin.nvidiaCTKPath", "/usr/bin/nvidia-ctk",
                        d -> d.config().flags().plugin().nvidiaCTKPath(), c("/hook1", "/hook1"), c("/hook2", "/hook2")),
                bind("driver-root-ctr-path", "DRIVER_ROOT_CTR_PATH", "flags.plugin.containerDriverRoot", "/driver-root",
                        d -> d.config().flags().plugin().containerDriverRoot(), c("/ctr1", "/ctr1"), c("/ctr2", "/ctr2")),
                bind("mps-root", "MPS_ROOT", "flags.mpsRoot", Optional.empty(), d -> d.config().flags().mpsRoot(),
                        c("/run/nvidia/mps", Optional.of("/run/nvidia/mps")), c("/mps", Optional.of("/mps"))),
                bind("shared-devices-allocation-policy", "SHARED_DEVICES_ALLOCATION_POLICY",
                        "flags.plugin.sharedDevicesAllocationPolicy", AllocationPolicy.DISTRIBUTED,
                        d -> d.config().flags().plugin().sharedDevicesAllocationPolicy(),
                        c("packed", AllocationPolicy.PACKED), c("distributed", AllocationPolicy.DISTRIBUTED)),
                bind("device-discovery-strategy", "DEVICE_DISCOVERY_STRATEGY", "flags.deviceDiscoveryStrategy",
                        DeviceDiscoveryStrategy.AUTO, d -> d.config().flags().deviceDiscoveryStrategy(),
                        c("nvml", DeviceDiscoveryStrategy.NVML), c("tegra", DeviceDiscoveryStrategy.TEGRA),
                        c("auto", DeviceDiscoveryStrategy.AUTO)),
                bind("imex-channel-ids", "IMEX_CHANNEL_IDS", "imex.channelIDs", List.of(),
                        d -> d.config().imex().channelIDs(), c("0", "[0]", List.of(0))),
                bind("imex-required", "IMEX_REQUIRED", "imex.required", false,
                        d -> d.config().imex().required(), booleans().toArray(Candidate[]::new)),
                bind("kubelet-socket", "KUBELET_SOCKET", null, Optional.of(DevicePluginConfig.DEFAULT_KUBELET_SOCKET),
                        DevicePluginConfig::kubeletSocket,
                        c("/tmp/a/kubelet.sock", Optional.of(Path.of("/tmp/a/kubelet.sock"))),
                        c("/tmp/b/kubelet.sock", Optional.of(Path.of("/tmp/b/kubelet.sock")))),
                bind("cdi-feature-flags", "CDI_FEATURE_FLAGS", null, List.of(), DevicePluginConfig::cdiFeatureFlags,
                        c("one,two", List.of("one", "two")), c("three", List.of("three"))),
                bind("cdi-disable-hooks", "CDI_DISABLE_HOOKS", null, List.of(), DevicePluginConfig::cdiDisableHooks,
                        c("all", List.of("all")), c("update-ldcache", List.of("update-ldcache"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bindings")
    void flagBeatsEnvironmentBeatsFileBeatsDefault(Binding<DevicePluginConfig> binding) {
        Precedence.check(binding, dir, DevicePluginConfig::load, Map.of());
    }

    @Test
    void nothingSetMeansNvidiasDefaults() {
        DevicePluginConfig config = DevicePluginConfig.load(new String[0], name -> null);
        assertThat(config.config()).isEqualTo(Config.defaults());
        assertThat(config.configFile()).isEmpty();
        assertThat(config.kubeletSocket()).contains(Path.of("/var/lib/kubelet/device-plugins/kubelet.sock"));
        assertThat(config.socketDirectory()).isEqualTo(Path.of("/var/lib/kubelet/device-plugins"));
        assertThat(config.healthChecks()).isEqualTo(HealthChecks.DEFAULT);
        assertThat(config.cdiFeatureFlags()).isEmpty();
        assertThat(config.cdiDisableHooks()).isEmpty();
        assertThat(config.warnings()).isEmpty();
    }

    record Case(String description, List<String> args, Map<String, String> env, String file,
                Consumer<DevicePluginConfig> check) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Case ok(String description, List<String> args, Map<String, String> env, String file,
                   Consumer<DevicePluginConfig> check) {
        return new Case(description, args, env, file, check);
    }

    static Stream<Case> accepted() {
        return Stream.of(
                ok("--nvidia-driver-root is an alias of --driver-root", List.of("--nvidia-driver-root=/drv"), Map.of(), null,
                        d -> assertThat(d.config().flags().nvidiaDriverRoot()).isEqualTo("/drv")),
                ok("--host_driver-root is an alias of --driver-root, as in NVIDIA's DRA driver",
                        List.of("--host_driver-root=/drv"), Map.of(), null,
                        d -> assertThat(d.config().flags().nvidiaDriverRoot()).isEqualTo("/drv")),
                ok("HOST_DRIVER_ROOT is read when NVIDIA_DRIVER_ROOT is not set", List.of(),
                        Map.of("HOST_DRIVER_ROOT", "/run/nvidia/driver"), null,
                        d -> assertThat(d.config().flags().nvidiaDriverRoot()).isEqualTo("/run/nvidia/driver")),
                ok("NVIDIA_DRIVER_ROOT wins over HOST_DRIVER_ROOT", List.of(),
                        Map.of("HOST_DRIVER_ROOT", "/host", "NVIDIA_DRIVER_ROOT", "/nvidia"), null,
                        d -> assertThat(d.config().flags().nvidiaDriverRoot()).isEqualTo("/nvidia")),
                ok("--nvidia-dev-root is an alias of --dev-root", List.of("--nvidia-dev-root", "/devs"), Map.of(), null,
                        d -> assertThat(d.config().flags().nvidiaDevRoot()).isEqualTo("/devs")),
                ok("--nvidia-ctk-path is an alias of --nvidia-cdi-hook-path", List.of("--nvidia-ctk-path=/ctk"), Map.of(), null,
                        d -> assertThat(d.config().flags().plugin().nvidiaCTKPath()).isEqualTo("/ctk")),
                ok("--container-driver-root is an alias of --driver-root-ctr-path", List.of("--container-driver-root=/c"),
                        Map.of(), null, d -> assertThat(d.config().flags().plugin().containerDriverRoot()).isEqualTo("/c")),
                ok("NVIDIA_CTK_PATH is read when NVIDIA_CDI_HOOK_PATH is not set", List.of(),
                        Map.of("NVIDIA_CTK_PATH", "/ctk"), null,
                        d -> assertThat(d.config().flags().plugin().nvidiaCTKPath()).isEqualTo("/ctk")),
                ok("NVIDIA_CDI_HOOK_PATH wins over NVIDIA_CTK_PATH", List.of(),
                        Map.of("NVIDIA_CTK_PATH", "/ctk", "NVIDIA_CDI_HOOK_PATH", "/hook"), null,
                        d -> assertThat(d.config().flags().plugin().nvidiaCTKPath()).isEqualTo("/hook")),
                ok("CONTAINER_DRIVER_ROOT is read when DRIVER_ROOT_CTR_PATH is not set", List.of(),
                        Map.of("CONTAINER_DRIVER_ROOT", "/c"), null,
                        d -> assertThat(d.config().flags().plugin().containerDriverRoot()).isEqualTo("/c")),
                ok("the device root follows the driver root unless set", List.of("--driver-root=/run/nvidia/driver"),
                        Map.of(), null, d -> assertThat(d.config().flags().nvidiaDevRoot()).isEqualTo("/run/nvidia/driver")),
                ok("an empty NVIDIA_DEV_ROOT means the driver root, as NVIDIA's Helm chart relies on", List.of(),
                        Map.of("NVIDIA_DRIVER_ROOT", "/run/nvidia/driver", "NVIDIA_DEV_ROOT", ""),
                        "flags:\n  nvidiaDevRoot: /file-dev-root\n",
                        d -> assertThat(d.config().flags().nvidiaDevRoot()).isEqualTo("/run/nvidia/driver")),
                ok("an empty KUBELET_SOCKET turns registration off", List.of(), Map.of("KUBELET_SOCKET", ""), null,
                        d -> assertThat(d.kubeletSocket()).isEmpty()),
                ok("an empty MPS_ROOT overrides the file with none", List.of(), Map.of("MPS_ROOT", ""),
                        "flags:\n  mpsRoot: /run/nvidia/mps\n", d -> assertThat(d.config().flags().mpsRoot()).isEmpty()),
                ok("single-dash flags, as Go accepts them", List.of("-mig-strategy=single", "-pass-device-specs"), Map.of(),
                        null, d -> {
                            assertThat(d.config().flags().migStrategy()).isEqualTo(MigStrategy.SINGLE);
                            assertThat(d.config().flags().plugin().passDeviceSpecs()).isTrue();
                        }),
                ok("a value as the next argument", List.of("--mig-strategy", "mixed"), Map.of(), null,
                        d -> assertThat(d.config().flags().migStrategy()).isEqualTo(MigStrategy.MIXED)),
                ok("a repeated flag: the last wins", List.of("--mig-strategy=mixed", "--mig-strategy=single"), Map.of(), null,
                        d -> assertThat(d.config().flags().migStrategy()).isEqualTo(MigStrategy.SINGLE)),
                ok("a repeated list flag gathers every value", List.of("--device-list-strategy=envvar",
                                "--device-list-strategy=cdi-cri,cdi-annotations"), Map.of(), null,
                        d -> assertThat(d.config().flags().plugin().deviceListStrategy()).containsExactlyInAnyOrder(
                                DeviceListStrategy.ENVVAR, DeviceListStrategy.CDI_CRI, DeviceListStrategy.CDI_ANNOTATIONS)),
                ok("a comma list in the environment, blanks ignored", List.of(),
                        Map.of("DEVICE_LIST_STRATEGY", "volume-mounts, cdi-cri"), null,
                        d -> assertThat(d.config().flags().plugin().deviceListStrategy()).containsExactlyInAnyOrder(
                                DeviceListStrategy.VOLUME_MOUNTS, DeviceListStrategy.CDI_CRI)),
                ok("every Go boolean spelling", List.of("--pass-device-specs=T", "--gds-enabled=1", "--mofed-enabled=True"),
                        Map.of("FAIL_ON_INIT_ERROR", "F", "GDRCOPY_ENABLED", "TRUE", "IMEX_REQUIRED", "0"), null, d -> {
                            assertThat(d.config().flags().plugin().passDeviceSpecs()).isTrue();
                            assertThat(d.config().flags().gdsEnabled()).isTrue();
                            assertThat(d.config().flags().mofedEnabled()).isTrue();
                            assertThat(d.config().flags().failOnInitError()).isFalse();
                            assertThat(d.config().flags().gdrcopyEnabled()).isTrue();
                            assertThat(d.config().imex().required()).isFalse();
                        }),
                ok("MPS with its root from the environment, as NVIDIA's Helm chart sets it", List.of(),
                        Map.of("MPS_ROOT", "/run/nvidia/mps"), "sharing:\n  mps:\n    resources:\n    - name: gpu\n      replicas: 4\n",
                        d -> {
                            assertThat(d.config().sharing().strategy()).isEqualTo(SharingStrategy.MPS);
                            assertThat(d.config().flags().mpsRoot()).contains("/run/nvidia/mps");
                        }),
                ok("time-slicing with mixed MIG is fine", List.of("--mig-strategy=mixed"), Map.of(),
                        "sharing:\n  timeSlicing:\n    resources:\n    - name: mig-1g.5gb\n      replicas: 4\n",
                        d -> assertThat(d.config().sharing().strategy()).isEqualTo(SharingStrategy.TIME_SLICING)),
                ok("health check variables", List.of(), Map.of("DP_DISABLE_HEALTHCHECKS", "48, 79", "DP_ENABLE_HEALTHCHECKS", "13"),
                        null, d -> {
                            assertThat(d.healthChecks().ignores(48)).isTrue();
                            assertThat(d.healthChecks().ignores(13)).isFalse();
                            assertThat(d.healthChecks().ignores(31)).isTrue();
                        }),
                ok("warnings from the file reach the caller", List.of(), Map.of(), "flags:\n  migStrategi: mixed\n",
                        d -> assertThat(d.warnings()).extracting(ConfigWarning::property).containsExactly("flags.migStrategi")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("accepted")
    void acceptsNvidiasSpellings(Case test) throws IOException {
        test.check().accept(DevicePluginConfig.load(test.args().toArray(String[]::new), environment(test)));
    }

    record Refused(String description, List<String> args, Map<String, String> env, String file, List<String> messages) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Refused refused(String description, List<String> args, Map<String, String> env, String file, String... messages) {
        return new Refused(description, args, env, file, List.of(messages));
    }

    static final String BOOLEANS = "must be a boolean: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false or False";
    static final String MPS = "sharing:\n  mps:\n    resources:\n    - name: gpu\n      replicas: 4\n";

    static Stream<Refused> refused() {
        return Stream.of(
                refused("unknown MIG strategy on the command line", List.of("--mig-strategy=foo"), Map.of(), null,
                        "--mig-strategy was 'foo' but it must be one of none, single, mixed"),
                refused("unknown MIG strategy in the environment", List.of(), Map.of("MIG_STRATEGY", "foo"), null,
                        "MIG_STRATEGY was 'foo' but it must be one of none, single, mixed"),
                refused("a bad flag is an error even when the environment is good", List.of("--mig-strategy=Mixed"),
                        Map.of("MIG_STRATEGY", "mixed"), null,
                        "--mig-strategy was 'Mixed' but it must be one of none, single, mixed"),
                refused("a boolean flag that is not Go's", List.of("--fail-on-init-error=yes"), Map.of(), null,
                        "--fail-on-init-error was 'yes' but it " + BOOLEANS),
                refused("a boolean variable that is not Go's", List.of(), Map.of("PASS_DEVICE_SPECS", "on"), null,
                        "PASS_DEVICE_SPECS was 'on' but it " + BOOLEANS),
                refused("an empty boolean variable", List.of(), Map.of("FAIL_ON_INIT_ERROR", ""), null,
                        "FAIL_ON_INIT_ERROR was '' but it " + BOOLEANS),
                refused("an unknown device list strategy in a comma list", List.of("--device-list-strategy=envvar,foo"),
                        Map.of(), null, "--device-list-strategy was 'envvar,foo' but it must list only envvar,"
                                + " volume-mounts, cdi-annotations, cdi-cri, but lists 'foo'"),
                refused("an empty device list strategy variable", List.of(), Map.of("DEVICE_LIST_STRATEGY", ""), null,
                        "DEVICE_LIST_STRATEGY was '' but it must list only envvar, volume-mounts, cdi-annotations, cdi-cri,"
                                + " but lists ''"),
                refused("an unknown device ID strategy", List.of(), Map.of("DEVICE_ID_STRATEGY", "serial"), null,
                        "DEVICE_ID_STRATEGY was 'serial' but it must be one of uuid, index"),
                refused("an unknown allocation policy", List.of("--shared-devices-allocation-policy=spread"), Map.of(), null,
                        "--shared-devices-allocation-policy was 'spread' but it must be one of distributed, packed"),
                refused("vfio is for feature discovery only", List.of("--device-discovery-strategy=vfio"), Map.of(), null,
                        "--device-discovery-strategy was 'vfio' but it must be one of auto, nvml, tegra for the device"
                                + " plugin (vfio is for feature discovery only)"),
                refused("a relative driver root", List.of(), Map.of("NVIDIA_DRIVER_ROOT", "run/nvidia/driver"), null,
                        "NVIDIA_DRIVER_ROOT was 'run/nvidia/driver' but it must be an absolute path"),
                refused("an IMEX channel other than 0", List.of("--imex-channel-ids=1"), Map.of(), null,
                        "--imex-channel-ids was '1' but it must be [] or [0], the only IMEX channels supported"),
                refused("an IMEX channel that is no number", List.of(), Map.of("IMEX_CHANNEL_IDS", "zero"), null,
                        "IMEX_CHANNEL_IDS was 'zero' but it must be a comma-separated list of integers, but lists 'zero'"),
                refused("an unknown flag", List.of("--frobnicate=3"), Map.of(), null,
                        "--frobnicate was '3' but it is not a flag of the device plugin (see --help)"),
                refused("a feature discovery flag", List.of("--oneshot"), Map.of(), null,
                        "--oneshot was '' but it is not a flag of the device plugin (see --help)"),
                refused("a flag without its value", List.of("--mig-strategy"), Map.of(), null,
                        "--mig-strategy was 'null' but it needs a value: --mig-strategy=<none|single|mixed>"),
                refused("a boolean given its value as the next argument", List.of("--pass-device-specs", "false"), Map.of(), null,
                        "command line was 'false' but it must hold only flags, as the device plugin takes no arguments;"
                                + " a boolean flag takes its value as --flag=false, not as the next argument"),
                refused("bad flag syntax", List.of("---mig-strategy=none"), Map.of(), null,
                        "---mig-strategy=none was '---mig-strategy=none' but it is not valid flag syntax; write --name=value"),
                refused("MPS without its root", List.of(), Map.of(), MPS,
                        "flags.mpsRoot was 'null' but it must be set (flags.mpsRoot, --mps-root or MPS_ROOT) when"
                                + " sharing.mps shares devices; NVIDIA's Helm chart uses /run/nvidia/mps"),
                refused("MPS with mixed MIG from the file", List.of(), Map.of("MPS_ROOT", "/mps"),
                        "flags:\n  migStrategy: mixed\n" + MPS,
                        "flags.migStrategy was 'mixed' but it must be none or single when sharing.mps shares devices"
                                + " (MPS cannot share MIG devices by profile)"),
                refused("MPS with mixed MIG from the environment names the variable", List.of(),
                        Map.of("MPS_ROOT", "/mps", "MIG_STRATEGY", "mixed"), MPS,
                        "MIG_STRATEGY was 'mixed' but it must be none or single when sharing.mps shares devices"
                                + " (MPS cannot share MIG devices by profile)"),
                refused("MPS with mixed MIG from a flag names the flag, and the missing root too",
                        List.of("--mig-strategy=mixed"), Map.of(), MPS,
                        "--mig-strategy was 'mixed' but it must be none or single when sharing.mps shares devices"
                                + " (MPS cannot share MIG devices by profile)",
                        "flags.mpsRoot was 'null' but it must be set (flags.mpsRoot, --mps-root or MPS_ROOT) when"
                                + " sharing.mps shares devices; NVIDIA's Helm chart uses /run/nvidia/mps"),
                refused("a bad MPS root is reported once, not again as missing", List.of(), Map.of("MPS_ROOT", "mps"), MPS,
                        "MPS_ROOT was 'mps' but it must be an absolute path (or empty for none)"),
                refused("a malformed XID", List.of(), Map.of("DP_DISABLE_HEALTHCHECKS", "48,foo"), null,
                        "DP_DISABLE_HEALTHCHECKS was '48,foo' but it must be 'all', 'xids' or a comma-separated list of XID"
                                + " numbers, but lists 'foo'"),
                refused("a bad file", List.of(), Map.of(), "flags:\n  plugin:\n    deviceIDStrategy: serial\n",
                        "flags.plugin.deviceIDStrategy was 'serial' but it must be one of uuid, index"),
                refused("every failure of the command line, the environment and the file at once",
                        List.of("--bogus", "--gds-enabled=maybe"),
                        Map.of("MIG_STRATEGY", "all", "DP_ENABLE_HEALTHCHECKS", "x"),
                        "sharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 1\n",
                        "--bogus was '' but it is not a flag of the device plugin (see --help)",
                        "sharing.timeSlicing.resources[0].replicas was '1' but it must be at least 2",
                        "MIG_STRATEGY was 'all' but it must be one of none, single, mixed",
                        "--gds-enabled was 'maybe' but it " + BOOLEANS,
                        "DP_ENABLE_HEALTHCHECKS was 'x' but it must be 'all', 'xids' or a comma-separated list of XID"
                                + " numbers, but lists 'x'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void refusesWithOneLineNamingEachBadSetting(Refused test) throws IOException {
        Map<String, String> env = new HashMap<>(test.env());
        if (test.file() != null) {
            Path file = dir.resolve("config.yaml");
            Files.writeString(file, test.file());
            env.put("CONFIG_FILE", file.toString());
        }
        assertThatThrownBy(() -> DevicePluginConfig.load(test.args().toArray(String[]::new), env::get))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> {
                    assertThat(e.failures()).extracting(ValidationFailure::message).containsExactlyElementsOf(test.messages());
                    assertThat(e.getMessage()).doesNotContain("\n");
                    assertThat(e.exitCode()).isEqualTo(1);
                });
    }

    @Test
    void namesTheSettingThatPointsAtAMissingFile() {
        Path missing = dir.resolve("missing.yaml");
        assertThatThrownBy(() -> DevicePluginConfig.load(new String[0], Map.of("CONFIG_FILE", missing.toString())::get))
                .hasMessage("invalid configuration: CONFIG_FILE was '" + missing + "' but it must name a readable file"
                        + " (NoSuchFileException: " + missing + ")");
        assertThatThrownBy(() -> DevicePluginConfig.load(new String[] {"--config-file=" + missing}, name -> null))
                .hasMessage("invalid configuration: --config-file was '" + missing + "' but it must name a readable file"
                        + " (NoSuchFileException: " + missing + ")");
    }

    @Test
    void theConfigFileFlagWinsOverItsVariable() throws IOException {
        Path byFlag = dir.resolve("flag.yaml");
        Files.writeString(byFlag, "flags:\n  migStrategy: single\n");
        Path byEnv = dir.resolve("env.yaml");
        Files.writeString(byEnv, "flags:\n  migStrategy: mixed\n");
        DevicePluginConfig config = DevicePluginConfig.load(new String[] {"--config-file", byFlag.toString()},
                Map.of("CONFIG_FILE", byEnv.toString())::get);
        assertThat(config.configFile()).contains(byFlag);
        assertThat(config.config().flags().migStrategy()).isEqualTo(MigStrategy.SINGLE);
        assertThat(DevicePluginConfig.load(new String[0], Map.of("CONFIG_FILE", "")::get).configFile()).isEmpty();
    }

    @Test
    void helpPrintsEveryFlagWithItsVariableAndDefault() {
        assertThatThrownBy(() -> DevicePluginConfig.load(new String[] {"--mig-strategy=bad", "--help"}, name -> null))
                .isInstanceOfSatisfying(UsageRequestedException.class, e -> {
                    assertThat(e.exitCode()).isZero();
                    for (Setting<?> setting : DevicePluginConfig.SETTINGS) {
                        setting.flags().forEach(flag -> assertThat(e.getMessage()).contains("--" + flag));
                        setting.envs().forEach(env -> assertThat(e.getMessage()).contains(env));
                    }
                    assertThat(e.getMessage()).contains("--mig-strategy=<none|single|mixed>")
                            .contains("config flags.migStrategy; default 'none'");
                });
        assertThatThrownBy(() -> DevicePluginConfig.load(new String[] {"-h"}, name -> null))
                .isInstanceOf(UsageRequestedException.class);
    }

    @Test
    void reloadTakesAGoodFileAndRefusesABadOneWithoutThrowing() throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, "version: v1\n");
        ConfigLoader<DevicePluginConfig> loader = DevicePluginConfig.loader(new String[] {"--config-file=" + file},
                Map.of("MIG_STRATEGY", "single")::get);
        DevicePluginConfig first = loader.load();
        assertThat(first.config().sharing().strategy()).isEqualTo(SharingStrategy.NONE);

        Files.writeString(file, "sharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 4\n");
        Reload<DevicePluginConfig> reloaded = loader.reload();
        assertThat(reloaded).isInstanceOfSatisfying(Reload.Loaded.class, loaded -> {
            DevicePluginConfig config = (DevicePluginConfig) loaded.config();
            assertThat(config.config().sharing().strategy()).isEqualTo(SharingStrategy.TIME_SLICING);
            assertThat(config.config().flags().migStrategy()).isEqualTo(MigStrategy.SINGLE);
        });

        Files.writeString(file, "sharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 1\n");
        assertThat(loader.reload()).isInstanceOfSatisfying(Reload.Rejected.class, rejected -> {
            assertThat(rejected.message()).isEqualTo("invalid configuration: sharing.timeSlicing.resources[0].replicas"
                    + " was '1' but it must be at least 2");
            assertThat(rejected.failures()).hasSize(1);
        });

        Files.delete(file);
        assertThat(loader.reload()).isInstanceOfSatisfying(Reload.Rejected.class, rejected ->
                assertThat(rejected.message()).contains("--config-file was '" + file + "' but it must name a readable file"));
    }

    @Test
    void logsTheEffectiveConfigAsJsonWithoutGfdFlags() throws IOException {
        DevicePluginConfig config = DevicePluginConfig.load(new String[] {"--pass-device-specs"}, name -> null);
        String json = config.toJson();
        assertThat(json).startsWith("{\n  \"version\": \"v1\",\n  \"flags\": {\n    \"migStrategy\": \"none\",")
                .contains("\"passDeviceSpecs\": true")
                .contains("\"plugin\": {")
                .doesNotContain("\"gfd\"");
    }

    private Function<String, String> environment(Case test) throws IOException {
        Map<String, String> env = new HashMap<>(test.env());
        if (test.file() != null) {
            Path file = dir.resolve("config.yaml");
            Files.writeString(file, test.file());
            env.put("CONFIG_FILE", file.toString());
        }
        return env::get;
    }
}
