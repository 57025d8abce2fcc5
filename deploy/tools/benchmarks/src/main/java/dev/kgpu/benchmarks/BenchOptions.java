package dev.kgpu.benchmarks;

import dev.kgpu.agent.settings.CommandLine;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.v1.ValueType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The benchmark's settings, validated: each bad one is named with its value in one line.
 *
 * @param root             the kgpu checkout (mock NVML, its profiles, {@code deploy/release/images/run-in-rootfs})
 * @param kgpuImages       the OCI layout holding kgpu's images ({@code deploy/release/images/target/oci})
 * @param kgpuRootfs       instead, the images' root filesystems as build-images assembles them (for its training)
 * @param nvidiaBin        NVIDIA's built agents, when they are measured too
 * @param nvidiaVersion    what those were built from, for the table
 * @param profile          the mock profile of the node
 * @param runs             start-up runs per subject (medians reported)
 * @param soak             how long the agents work at the end (zero: no soak)
 * @param allocates        Allocate calls spread over the soak
 * @param scrapesPerSecond exporter scrapes per second during the soak
 * @param workDir          nodes, unpacked images and logs; wiped at start
 * @param json             where the figures go as JSON
 * @param variant          what is changed in kgpu's images for this run (a lever weighed without a rebuild), or
 *                         a training run
 * @param pageCache        what of an agent's own files is in the page cache when it starts
 */
record BenchOptions(Path root, Path kgpuImages, Optional<Path> kgpuJvmImages, Optional<Path> kgpuRootfs, Optional<Path> nvidiaBin, String nvidiaVersion, String profile, int runs,
                    Duration soak, int allocates, int scrapesPerSecond, Path workDir, Path json, KgpuImages.Variant variant,
                    PageCache pageCache) {

    static final String USAGE = """
            usage: images-benchmark [options]
              --kgpu-images=<dir>        OCI layout with kgpu's images (default <root>/deploy/release/images/target/oci):
                                         the plugin's, discovery's and the exporter's; the validator's driver
                                         one-shot is measured too when the layout holds its image
              --kgpu-jvm-images=<dir>    also measure the images of a second layout side by side, e.g. the JVM images
                                         (build-images --jvm --output <dir>/..) beside the native ones
              --nvidia-bin=<dir>         also measure NVIDIA's nvidia-device-plugin and gpu-feature-discovery in <dir>
              --nvidia-version=<text>    what they were built from, e.g. "v0.17.4, go1.23.5"
              --profile=<name>           mock NVML profile of the node (default dgx-a100)
              --runs=<n>                 start-up runs per subject, medians reported (default 5)
              --soak=<seconds>           the agents' work at the end, 0 for none (default 600)
              --allocates=<n>            Allocate calls spread over the soak (default 10000)
              --scrapes-per-second=<n>   exporter scrapes during the soak (default 2)
              --work-dir=<dir>           short: it holds Unix sockets (default /tmp/kgpu-bench)
              --json=<file>              the figures as JSON (default <root>/deploy/release/images/target/benchmark.json)
              --root=<dir>               the kgpu checkout (default the current folder)
              --page-cache=<state>       each agent's own files when it starts (its image's root filesystem, or
                                         NVIDIA's binary): unpacked, written anew in 32 KiB writes as containerd
                                         unpacks a layer, so cached as a node holds them just after pulling the
                                         image (default); read-in, read whole with 1 MiB reads (cached in large
                                         folios, of which Linux 6.18 maps a whole one per fault); evicted, written
                                         back and dropped first, as after a reboot; as-left, whatever the run before
                                         left (a kgpu native agent's own pages handed back drop them)
            To weigh a lever without rebuilding the images:
              --jvm-options=<file>       mount <file> over the images' /opt/kgpu/jvm.options
              --aot-caches=<dir>         mount <dir>/<agent>/app.aot over the images' /opt/kgpu/app.aot
              --native-options="<opts>"  native images: start each executable with these runtime options first,
                                         e.g. "-Xmx48m -Xmn8m" (each -X... or -XX:...; defaults baked in at build
                                         with -R: are weighed so without a rebuild)
              --train=<dir>              measure nothing: run each agent's work once recording its AOT configuration,
                                         then create <dir>/<agent>/app.aot in its image (with --jvm-options if given)
              --kgpu-rootfs=<dir>        the images as build-images assembles them, <dir>/<agent>/rootfs and
                                         <dir>/<agent>/image-config.json, instead of --kgpu-images (build-images' --train)
              --discovery-sink=<sink>    where kgpu's discovery writes its labels: node, on the Node through the API
                                         server, as its DaemonSet does (default); file, NFD's feature file, as NVIDIA's
                                         GFD does here (--output-file), to weigh the two like for like
            """;

    private static final Setting<String> KGPU_IMAGES = flag("kgpu-images");
    private static final Setting<String> KGPU_JVM_IMAGES = flag("kgpu-jvm-images");
    private static final Setting<String> NVIDIA_BIN = flag("nvidia-bin");
    private static final Setting<String> NVIDIA_VERSION = flag("nvidia-version");
    private static final Setting<String> PROFILE = flag("profile");
    private static final Setting<String> RUNS = flag("runs");
    private static final Setting<String> SOAK = flag("soak");
    private static final Setting<String> ALLOCATES = flag("allocates");
    private static final Setting<String> SCRAPES_PER_SECOND = flag("scrapes-per-second");
    private static final Setting<String> WORK_DIR = flag("work-dir");
    private static final Setting<String> JSON = flag("json");
    private static final Setting<String> ROOT = flag("root");
    private static final Setting<String> JVM_OPTIONS = flag("jvm-options");
    private static final Setting<String> AOT_CACHES = flag("aot-caches");
    private static final Setting<String> TRAIN = flag("train");
    private static final Setting<String> NATIVE_OPTIONS = flag("native-options");
    private static final Setting<String> KGPU_ROOTFS = flag("kgpu-rootfs");
    private static final Setting<String> PAGE_CACHE = flag("page-cache");
    private static final Setting<String> DISCOVERY_SINK = flag("discovery-sink");
    /** The options {@link #USAGE} lists, read by the agents' shared {@link CommandLine}. */
    private static final List<Setting<?>> FLAGS = List.of(KGPU_IMAGES, KGPU_JVM_IMAGES, NVIDIA_BIN, NVIDIA_VERSION, PROFILE, RUNS, SOAK,
            ALLOCATES, SCRAPES_PER_SECOND, WORK_DIR, JSON, ROOT, JVM_OPTIONS, AOT_CACHES, TRAIN, NATIVE_OPTIONS, KGPU_ROOTFS,
            PAGE_CACHE, DISCOVERY_SINK);

    private static Setting<String> flag(String name) {
        return Setting.of(List.of(name), List.of(), ValueType.string(), "", "the benchmark's --" + name + " (see USAGE)");
    }

    static BenchOptions parse(List<String> args) {
        Path root = Path.of("").toAbsolutePath();
        String images = null;
        String jvmImages = null;
        String nvidia = null;
        String version = "unknown version";
        String profile = "dgx-a100";
        String runs = "5";
        String soak = "600";
        String allocates = "10000";
        String scrapes = "2";
        String work = "/tmp/kgpu-bench";
        String json = null;
        String jvmOptions = null;
        String aotCaches = null;
        String train = null;
        String nativeOptions = "";
        String rootfs = null;
        String pageCache = PageCache.UNPACKED.option();
        String discoverySink = "node";
        List<String> problems = new ArrayList<>();
        CommandLine line = CommandLine.parse(args.toArray(String[]::new), FLAGS, "images-benchmark");
        for (CommandLine.Problem problem : line.problems()) {
            problems.add(switch (problem) {
                case CommandLine.Problem.MissingValue(String arg, Setting<?> setting) ->
                        arg + " was '' but it needs a value: " + arg + "=<...>";
                default -> "option was '" + problem.arg() + "' but it is not one of the benchmark's (--help lists them)";
            });
        }
        images = line.last(KGPU_IMAGES).orElse(images);
        jvmImages = line.last(KGPU_JVM_IMAGES).orElse(jvmImages);
        nvidia = line.last(NVIDIA_BIN).orElse(nvidia);
        version = line.last(NVIDIA_VERSION).orElse(version);
        profile = line.last(PROFILE).orElse(profile);
        runs = line.last(RUNS).orElse(runs);
        soak = line.last(SOAK).orElse(soak);
        allocates = line.last(ALLOCATES).orElse(allocates);
        scrapes = line.last(SCRAPES_PER_SECOND).orElse(scrapes);
        work = line.last(WORK_DIR).orElse(work);
        json = line.last(JSON).orElse(json);
        root = line.last(ROOT).map(value -> Path.of(value).toAbsolutePath()).orElse(root);
        jvmOptions = line.last(JVM_OPTIONS).orElse(jvmOptions);
        aotCaches = line.last(AOT_CACHES).orElse(aotCaches);
        train = line.last(TRAIN).orElse(train);
        nativeOptions = line.last(NATIVE_OPTIONS).orElse(nativeOptions);
        rootfs = line.last(KGPU_ROOTFS).orElse(rootfs);
        pageCache = line.last(PAGE_CACHE).orElse(pageCache);
        discoverySink = line.last(DISCOVERY_SINK).orElse(discoverySink);
        int runCount = number("--runs", runs, 1, 100, problems);
        int soakSeconds = number("--soak", soak, 0, 86_400, problems);
        int allocateCount = number("--allocates", allocates, 1, 10_000_000, problems);
        int scrapeRate = number("--scrapes-per-second", scrapes, 1, 1000, problems);
        PageCache cacheState = PageCache.UNPACKED;
        try {
            cacheState = PageCache.of(pageCache);
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        if (!discoverySink.equals("node") && !discoverySink.equals("file")) {
            problems.add("--discovery-sink was '" + discoverySink + "' but it must be node or file");
        }
        if (profile.isBlank()) {
            problems.add("--profile was '' but it must name a mock profile, e.g. dgx-a100");
        }
        if (jvmOptions != null && !java.nio.file.Files.isRegularFile(Path.of(jvmOptions))) {
            problems.add("--jvm-options was '" + jvmOptions + "' but it is not a file");
        }
        if (aotCaches != null && !java.nio.file.Files.isDirectory(Path.of(aotCaches))) {
            problems.add("--aot-caches was '" + aotCaches + "' but it is not a folder");
        }
        if (train != null && aotCaches != null) {
            problems.add("--train was '" + train + "' but it records new caches, so --aot-caches ('" + aotCaches + "') cannot go with it");
        }
        String givenNativeOptions = nativeOptions;
        List<String> runtimeOptions = nativeOptions.isBlank() ? List.of() : List.of(nativeOptions.strip().split("\\s+"));
        runtimeOptions.stream().filter(o -> !o.matches("-X[a-z][^=\\s]*|-XX:[+-]?[A-Za-z]+(=\\S+)?")).findFirst().ifPresent(o ->
                problems.add("--native-options was '" + givenNativeOptions + "' but '" + o
                        + "' is no runtime option (-Xmx48m, -XX:MaxNewSize=8m)"));
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", problems));
        }
        KgpuImages.Variant variant = new KgpuImages.Variant(
                Optional.ofNullable(jvmOptions).map(p -> Path.of(p).toAbsolutePath()),
                Optional.ofNullable(aotCaches).map(p -> Path.of(p).toAbsolutePath()),
                Optional.ofNullable(train).map(p -> Path.of(p).toAbsolutePath()), runtimeOptions, discoverySink.equals("file"));
        if (jvmImages != null && !java.nio.file.Files.isRegularFile(Path.of(jvmImages, "index.json"))) {
            throw new IllegalArgumentException("--kgpu-jvm-images was '" + jvmImages + "' but it is no OCI layout (no index.json)");
        }
        return new BenchOptions(root, images == null ? root.resolve("deploy/release/images/target/oci") : Path.of(images).toAbsolutePath(),
                Optional.ofNullable(jvmImages).map(p -> Path.of(p).toAbsolutePath()),
                Optional.ofNullable(rootfs).map(p -> Path.of(p).toAbsolutePath()), Optional.ofNullable(nvidia).map(p -> Path.of(p).toAbsolutePath()), version, profile, runCount,
                Duration.ofSeconds(soakSeconds), allocateCount, scrapeRate, Path.of(work).toAbsolutePath(),
                json == null ? root.resolve("deploy/release/images/target/benchmark.json") : Path.of(json).toAbsolutePath(), variant,
                cacheState);
    }

    private static int number(String name, String value, int min, int max, List<String> problems) {
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problems.add(name + " was '" + value + "' but it must be a whole number from " + min + " to " + max);
        return min;
    }
}
