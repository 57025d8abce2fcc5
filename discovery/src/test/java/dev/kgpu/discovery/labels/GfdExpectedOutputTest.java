package dev.kgpu.discovery.labels;

import dev.kgpu.config.v1.MigStrategy;
import dev.kgpu.config.v1.SharingStrategy;
import dev.kgpu.discovery.labels.LabelSettings.Sharing;
import dev.kgpu.discovery.testing.TestSettings;
import dev.kgpu.nvml.mock.MockNvml;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GFD's own check of its output ({@code cmd/gpu-feature-discovery/main_test.go checkResult}) applied, as it is,
 * to discovery's labels on every mock profile: each label line must match one of the regular expressions of
 * GFD's {@code tests/expected-output*.txt} for that MIG strategy (unanchored, as Go's {@code MatchString}), the
 * vGPU lines those of {@code expected-output-vgpu.txt}.
 *
 * <p>A line that matches none passes only when NVIDIA's GFD (v0.17.4, run unmodified on the same mock profile by
 * {@code deploy/tools/upstream/run-nvidia-agents}; its labels in {@code nvidia-gfd-v0.17.4/}) emits the same label,
 * which then fails its own check too: the {@code mig-1g.10gb.me.*} and {@code mig-1c.2g.20gb.*} families of
 * MIG profiles GFD's expressions ({@code mig-[0-9]+g\.[0-9]+gb\.}) were not written for. No other exception.
 */
class GfdExpectedOutputTest {

    static final Path ROOT = resource("conformance/gpu-feature-discovery");
    static MockNvml mock;

    @TempDir
    Path sysfsRoot;

    /** A profile labelled under a MIG strategy (and sharing), checked with GFD's files for that strategy. */
    record Case(String profile, String variant, LabelSettings settings, List<String> files) {
        @Override
        public String toString() {
            return profile + " " + variant + " against " + String.join(" and ", files);
        }
    }

    static Stream<Case> cases() {
        List<String> none = List.of("expected-output.txt", "expected-output-mig-none.txt");
        List<String> single = List.of("expected-output-mig-single.txt");
        List<String> mixed = List.of("expected-output-mig-mixed.txt");
        Stream<Case> everyProfileWithoutMig = profileNames().stream()
                .map(p -> new Case(p, "none", TestSettings.labels(), none));
        return Stream.concat(everyProfileWithoutMig, Stream.of(
                new Case("dgx-a100", "single", TestSettings.labels(MigStrategy.SINGLE), single),
                new Case("mig-mixed", "single", TestSettings.labels(MigStrategy.SINGLE), single),
                new Case("h100-mig", "single", TestSettings.labels(MigStrategy.SINGLE), single),
                new Case("dgx-a100", "mixed", TestSettings.labels(MigStrategy.MIXED), mixed),
                new Case("mig-mixed", "mixed", TestSettings.labels(MigStrategy.MIXED), mixed),
                new Case("h100-mig", "mixed", TestSettings.labels(MigStrategy.MIXED), mixed),
                new Case("rtx3060", "time-slicing", TestSettings.labels(new Sharing(SharingStrategy.TIME_SLICING,
                        Map.of("nvidia.com/gpu", 4), false)), none),
                new Case("dgx-h100", "mps", TestSettings.labels(new Sharing(SharingStrategy.MPS,
                        Map.of("nvidia.com/gpu", 2), false)), none)));
    }

    @BeforeAll
    static void loadMock() {
        mock = MockNvml.load();
    }

    @AfterAll
    static void resetMock() {
        mock.reset();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void discoverysLabelsPassGfdsOwnCheck(Case c) {
        Labels labels = ProfileLabelsTest.labelsOf(mock, c.profile(), c.settings(), sysfsRoot);
        List<String> lines = List.of(labels.toFeatureFile().split("\n"));
        assertThat(lines).as("the vGPU labels GFD's check reads").anyMatch(l -> l.contains("vgpu"));
        for (String file : c.files()) {
            List<String> failing = failing(lines, file, c);
            Optional<Path> nvidia = nvidiaGfd(c);
            List<String> unexplained = failing.stream()
                    .filter(line -> nvidia.map(n -> !emitsAndFails(n, key(line), file, c)).orElse(true))
                    .toList();
            assertThat(unexplained).as("labels of %s %s matching no expression of GFD's %s (NVIDIA's GFD does not fail"
                    + " on them)", c.profile(), c.variant(), file).isEmpty();
        }
    }

    /**
     * Where NVIDIA's GFD was run on the same profile and strategy, every label both emit has the same value
     * ({@code gpu.machine} aside: it is the machine-type file's, which the two runs are given differently).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyLabelBothEmitHasNvidiasValue(Case c) {
        Optional<Path> nvidia = nvidiaGfd(c);
        org.junit.jupiter.api.Assumptions.assumeTrue(nvidia.isPresent(), "NVIDIA's GFD was not run on " + c);
        Map<String, String> ours = ProfileLabelsTest.labelsOf(mock, c.profile(), c.settings(), sysfsRoot).asMap();
        Map<String, String> theirs = new java.util.TreeMap<>();
        read(nvidia.get()).forEach(l -> theirs.put(key(l), l.substring(l.indexOf('=') + 1)));
        Map<String, String> differing = new java.util.TreeMap<>();
        theirs.forEach((k, v) -> {
            if (ours.containsKey(k) && !ours.get(k).equals(v) && !k.equals("nvidia.com/gpu.machine")
                    && !k.equals(Labels.TIMESTAMP)) {
                differing.put(k, "kgpu " + ours.get(k) + ", NVIDIA " + v);
            }
        });
        assertThat(differing).as("labels of %s whose values differ from NVIDIA's GFD", c).isEmpty();
        assertThat(ours.keySet().stream().filter(theirs::containsKey).count()).as("labels both emit").isGreaterThan(10);
    }

    @Test
    void theCheckFailsOnWhatGfdNeverWrites() {
        Case none = new Case("dgx-a100", "none", TestSettings.labels(), List.of("expected-output.txt"));
        assertThat(failing(List.of("nvidia.com/gpu.present=false", "nvidia.com/gpu.count=8"), "expected-output.txt", none))
                .containsExactly("nvidia.com/gpu.present=false");
        assertThat(failing(List.of("nvidia.com/vgpu.present=maybe"), "expected-output.txt", none))
                .containsExactly("nvidia.com/vgpu.present=maybe");
    }

    /** Every shipped mock profile ({@code nvml-ffm/nvml/mock/profiles/*.json}). */
    static List<String> profileNames() {
        try (Stream<Path> files = Files.list(MockNvml.profilesDir())) {
            List<String> names = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - ".json".length())).sorted().toList();
            assertThat(names).hasSizeGreaterThanOrEqualTo(6);
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** GFD's checkResult: the lines matching no expression; vGPU lines against the vGPU file. */
    static List<String> failing(List<String> lines, String file, Case c) {
        List<Pattern> plain = patterns(file);
        List<Pattern> vgpu = patterns("expected-output-vgpu.txt");
        List<String> failing = new ArrayList<>();
        for (String line : lines) {
            List<Pattern> expressions = line.contains("vgpu") ? vgpu : plain;
            if (expressions.stream().noneMatch(p -> p.matcher(line).find())) {
                failing.add(line);
            }
        }
        return failing;
    }

    /** Whether NVIDIA's GFD labels on the same profile carry {@code key} on a line that fails the same check. */
    private static boolean emitsAndFails(Path nvidia, String key, String file, Case c) {
        List<String> theirs = read(nvidia);
        return theirs.stream().anyMatch(l -> key(l).equals(key)) && failing(theirs, file, c).stream().anyMatch(l -> key(l).equals(key));
    }

    private static Optional<Path> nvidiaGfd(Case c) {
        Path file = ROOT.resolve("nvidia-gfd-v0.17.4").resolve(c.profile() + "-" + c.variant() + ".txt");
        return Files.exists(file) ? Optional.of(file) : Optional.empty();
    }

    private static String key(String line) {
        return line.substring(0, line.indexOf('='));
    }

    private static List<Pattern> patterns(String file) {
        return read(ROOT.resolve("tests").resolve(file)).stream().map(Pattern::compile).toList();
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path resource(String name) {
        try {
            return Path.of(GfdExpectedOutputTest.class.getClassLoader().getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
