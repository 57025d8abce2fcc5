package dev.kgpu.plugin.conformance;

import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.plugin.deviceplugin.resources.ConfiguredResourcePlanner;
import dev.kgpu.plugin.deviceplugin.resources.ResourcePlanException;
import dev.kgpu.plugin.devices.DeviceSource;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.nvml.MigCapabilities;
import dev.kgpu.plugin.nvml.NvmlDeviceSource;
import dev.kgpu.plugin.settings.PluginSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * NVIDIA's own config files (k8s-device-plugin's README, Helm values and unit-test inputs, gpu-operator's test
 * config; {@code nvml-ffm/nvidia-config/conformance/k8s-device-plugin/ORIGIN.md}) read by kgpu's plugin: every
 * file NVIDIA accepts starts it (discovery's own {@code NvidiaConfigConformanceTest} checks that discovery does
 * too), every file NVIDIA refuses is refused, and on each mock
 * profile NVIDIA's plugin (v0.17.4, run on the same mock node by {@code deploy/tools/upstream/measure-nvidia-configs})
 * was measured on, kgpu advertises the same resources with the same counts, except the differences listed in
 * {@link #DIFFERENCES}, each with its reason. Reads the mock through the real FFM path; about 2 s.
 */
class NvidiaConfigConformanceTest {

    /** NVIDIA's config files and their outcomes, shared with discovery's conformance test (tests run in plugin/). */
    static final Path ROOT = Path.of("..", "nvml-ffm", "nvidia-config", "conformance", "k8s-device-plugin");
    /** What NVIDIA's plugin did with them on the mock profiles: the plugin's own measurements. */
    static final Path MEASURED = resource("conformance/k8s-device-plugin/nvidia-v0.17.4-measured.tsv");
    /** What NVIDIA's Helm chart runs the plugin with (and so the measurements). */
    static final Map<String, String> HELM_ENVIRONMENT = Map.of("MPS_ROOT", "/run/nvidia/mps");

    /** mig-mixed's one {@code 1g.10gb+me} device under {@code migStrategy: mixed}. */
    static final Difference MIG_ME = new Difference("nvidia.com/mig-1g.10gb=9,nvidia.com/mig-1g.10gb.me=1,"
            + "nvidia.com/mig-1g.20gb=1,nvidia.com/mig-2g.20gb=4,nvidia.com/mig-3g.40gb=2,nvidia.com/mig-4g.40gb=1",
            "1g.10gb+me is a resource of its own, mig-1g.10gb.me, as in NVIDIA v0.20 (#1807 anchored the patterns);"
                    + " v0.17.4's unanchored 1g.10gb pattern counted it under mig-1g.10gb");

    /**
     * Where kgpu advertises something else than the NVIDIA plugin measured, on purpose: config file, profile,
     * kgpu's counts and why. Every entry must differ from the measurement (checked), so none outlives its reason.
     */
    static final Map<String, Difference> DIFFERENCES = Map.of(
            "helm-values-mig-mixed.yaml mig-mixed", MIG_ME, "readme-dp-example-config1.yaml mig-mixed", MIG_ME);


    record Difference(String kgpuCounts, String reason) {
    }

    /** One row of {@code cases.tsv}: a config file, NVIDIA's outcome, and where it comes from. */
    record Case(String file, boolean nvidiaAccepts, String origin) {
        @Override
        public String toString() {
            return file + " (NVIDIA " + (nvidiaAccepts ? "accepts" : "refuses") + ")";
        }
    }

    /** One row of the measurements: what NVIDIA's plugin advertised with a config file on a profile. */
    record Measured(String file, String profile, boolean accepted, String detail) {
        @Override
        public String toString() {
            return file + " on " + profile;
        }
    }

    static MockNvml mock;
    static final Map<String, NodeInventory> INVENTORIES = new ConcurrentHashMap<>();

    @BeforeAll
    static void loadMock() {
        mock = MockNvml.load();
    }

    @AfterAll
    static void resetMock() {
        mock.reset();
    }

    static Stream<Case> cases() {
        return rows(ROOT.resolve("cases.tsv")).map(r -> new Case(r[0], switch (r[1]) {
            case "accepted" -> true;
            case "rejected" -> false;
            default -> throw new IllegalArgumentException("cases.tsv: '" + r[1] + "' is neither accepted nor rejected");
        }, r[2]));
    }

    static Stream<Measured> measured() {
        return rows(MEASURED).map(r -> new Measured(r[0], r[1], r[2].equals("accepted"), r[3]));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void kgpuAcceptsWhatNvidiaAcceptsAndRefusesWhatItRefuses(Case c) {
        Path file = ROOT.resolve("configs").resolve(c.file());
        Optional<String> refusal = refusal(file, "dgx-a100");
        if (c.nvidiaAccepts()) {
            assertThat(refusal).as("kgpu must start with %s, which NVIDIA accepts (%s)", c.file(), c.origin()).isEmpty();
        } else {
            assertThat(refusal).as("kgpu must refuse %s, which NVIDIA refuses (%s)", c.file(), c.origin()).isPresent();
            assertThat(refusal.get()).as("one line naming the field and the value").doesNotContain("\n")
                    .contains(" was '");
        }
    }

    /**
     * What NVIDIA's v0.17.4 plugin did with a file on a mock profile, kgpu does: it advertises the same resources
     * and counts (or a difference of {@link #DIFFERENCES}), or it refuses to start too. With MPS, NVIDIA's plugin ran
     * against kgpu's mps-control-daemon ({@code measure-nvidia-configs}, {@code run-nvidia-agents --kgpu-mps}): it
     * accepted kgpu's daemons on dgx-a100; on mig-mixed (every GPU MIG-enabled) kgpu's daemon refuses to start, as
     * NVML refuses EXCLUSIVE_PROCESS on MIG-enabled GPUs, so NVIDIA's plugin waited in vain, which is checked here as
     * kgpu's refusal. {@code sleepInterval: infinite}, which v0.17.4 predates, kgpu takes, as v0.19 and later do.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("measured")
    void kgpuAdvertisesWhatNvidiasPluginAdvertised(Measured m) {
        Path file = ROOT.resolve("configs").resolve(m.file());
        if (m.detail().contains("error waiting for MPS daemon")) {
            assertThat(m.profile()).as("NVIDIA's plugin waited for kgpu's MPS daemon only on MIG-enabled GPUs")
                    .isEqualTo("mig-mixed");
            assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> dev.kgpu.plugin.mps.MpsShare.of(plan(file, m.profile()))))
                    .as("kgpu's MPS control daemon refuses %s on %s", m.file(), m.profile())
                    .isInstanceOf(dev.kgpu.plugin.node.UnservableException.class).hasMessageContaining("it has MIG enabled");
            return;
        }
        if (!m.accepted()) {
            if (m.file().equals("unit-flags-07.yaml")) {
                assertThat(refusal(file, m.profile())).as("sleepInterval: infinite, as NVIDIA v0.19+").isEmpty();
            } else {
                assertThat(refusal(file, m.profile())).as("NVIDIA's plugin refused to start with %s on %s: %s",
                        m.file(), m.profile(), m.detail()).isPresent();
            }
            return;
        }
        String kgpu = counts(plan(file, m.profile()));
        Difference difference = DIFFERENCES.get(m.file() + " " + m.profile());
        if (difference == null) {
            assertThat(kgpu).as("resources advertised with %s on %s", m.file(), m.profile()).isEqualTo(m.detail());
        } else {
            assertThat(m.detail()).as("a listed difference that no longer differs").isNotEqualTo(difference.kgpuCounts());
            assertThat(kgpu).as("kgpu's documented difference: %s", difference.reason()).isEqualTo(difference.kgpuCounts());
        }
    }

    /**
     * NVIDIA's outcomes in {@code cases.tsv} (its unit tests' declarations, for v0.20) agree with what its v0.17.4
     * plugin did with the same file on dgx-a100 (its MPS configs against kgpu's MPS control daemon), but for
     * {@code sleepInterval: infinite}, new in v0.19.
     */
    @Test
    void theMeasuredPluginAgreesWithTheDeclaredOutcomes() {
        Map<String, Boolean> declared = cases().collect(Collectors.toMap(Case::file, Case::nvidiaAccepts));
        // dgx-a100: a node every accepted file can be served on (MIG off, eight GPUs)
        rows(MEASURED).filter(r -> r[1].equals("dgx-a100")).forEach(r -> {
            boolean accepted = r[2].equals("accepted");
            if (accepted == declared.get(r[0])) {
                return;
            }
            assertThat(accepted).as("%s on %s: NVIDIA's v0.17.4 accepted a file NVIDIA refuses", r[0], r[1]).isFalse();
            assertThat(r[0].equals("unit-flags-07.yaml"))
                    .as("%s on %s: NVIDIA's v0.17.4 refused it (%s)", r[0], r[1], r[3]).isTrue();
        });
    }

    @Test
    void everyConfigFileIsACaseAndEveryCaseHasItsOrigin() throws IOException {
        List<String> files;
        try (Stream<Path> list = Files.list(ROOT.resolve("configs"))) {
            files = list.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(cases().map(Case::file).sorted().toList()).containsExactlyElementsOf(files);
        assertThat(cases()).allSatisfy(c -> assertThat(c.origin()).isNotBlank());
        assertThat(measured().map(Measured::file)).allSatisfy(f -> assertThat(files).contains(f));
    }

    /** Why kgpu's plugin would not start with {@code file} on {@code profile}; empty when it starts. */
    static Optional<String> refusal(Path file, String profile) {
        try {
            plan(file, profile);
            return Optional.empty();
        } catch (InvalidConfigException | ResourcePlanException e) {
            return Optional.of(e.getMessage());
        }
    }

    static List<PluginResource> plan(Path file, String profile) {
        Map<String, String> env = new HashMap<>(HELM_ENVIRONMENT);
        env.put("KGPU_NVML_LIBRARY", System.getenv("KGPU_NVML_LIBRARY"));
        PluginSettings settings = PluginSettings.load(new String[] {"--config-file=" + file}, env::get);
        return new ConfiguredResourcePlanner(settings.devicePlugin().orElseThrow().resources()).plan(INVENTORIES.computeIfAbsent(profile, p -> inventory(p, settings)));
    }

    private static NodeInventory inventory(String profile, PluginSettings settings) {
        mock.useProfile(profile);
        try (DeviceSource source = NvmlDeviceSource.factory(settings.node().nvml(), MigCapabilities.none()).open()) {
            return source.inventory();
        }
    }

    /** {@code nvidia.com/gpu=8,nvidia.com/mig-1g.10gb=2}, sorted by name as NVIDIA's plugin lists them. */
    static String counts(List<PluginResource> resources) {
        Map<String, Integer> counts = new TreeMap<>();
        resources.forEach(r -> counts.put(r.name(), r.devices().size()));
        return counts.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }

    private static Stream<String[]> rows(Path file) {
        try {
            return Files.readAllLines(file).stream()
                    .filter(line -> !line.isBlank() && !line.startsWith("#"))
                    .map(line -> Arrays.copyOf(line.split("\t", -1), 4));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path resource(String name) {
        try {
            return Path.of(NvidiaConfigConformanceTest.class.getClassLoader().getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
