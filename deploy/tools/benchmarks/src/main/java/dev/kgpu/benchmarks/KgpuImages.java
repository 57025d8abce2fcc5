package dev.kgpu.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kgpu.simulator.AgentEnvironment;
import dev.kgpu.simulator.agents.Agent;
import dev.kgpu.simulator.agents.ValidatorMode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * kgpu's agents in their OCI images, as {@code deploy/release/images/build-images} made them: each image unpacked with
 * umoci (its root filesystem and its config: entrypoint, environment, user, working folder) and run daemonless with
 * {@code deploy/release/images/run-in-rootfs} (bubblewrap): read-only root, no capabilities, the image's user, a tmpfs at
 * {@code /tmp} (the chart's emptyDir), the image's entrypoint (the native executable, or the JVM with its
 * {@code jvm.options} and AOT cache), and the
 * environment its DaemonSet gives it pointed at the simulated node ({@link AgentEnvironment}, the simulated node's
 * own: discovery labels the Node through the API server), whose folder is mounted at the same path.
 */
record KgpuImages(Path checkout, Path ociLayout, Map<String, Image> images, Variant variant, String name) implements Subject {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> AGENTS = List.of("plugin", "discovery", "exporter", "validator");
    /** Those measured only when the layout holds their image: the validator (its driver one-shot). */
    private static final List<String> OPTIONAL_AGENTS = List.of("validator");

    /** The exporter's collection interval in its DaemonSet ({@code deploy/release/kubernetes/exporter.yaml}). */
    static final String EXPORTER_INTERVAL_MS = "15000";

    /**
     * What the benchmark changes in the images, to weigh a lever without rebuilding them.
     *
     * @param jvmOptions a {@code jvm.options} mounted over the images' ({@code --jvm-options})
     * @param aotCaches  a folder with {@code <agent>/app.aot}, each mounted over its image's ({@code --aot-caches})
     * @param training   a folder where each agent records its AOT configuration instead of using its cache
     *                   ({@code <agent>/app.aotconf}, {@code --train})
     * @param nativeOptions runtime options each native executable is started with before its own arguments
     *                   ({@code --native-options}, e.g. {@code -Xmn8m})
     * @param discoveryFeatureFile discovery writes NFD's feature file, as NVIDIA's GFD does here, instead of the Node's
     *                   labels its DaemonSet writes ({@code --discovery-sink=file})
     */
    record Variant(Optional<Path> jvmOptions, Optional<Path> aotCaches, Optional<Path> training, List<String> nativeOptions,
                   boolean discoveryFeatureFile) {
        static final Variant NONE = new Variant(Optional.empty(), Optional.empty(), Optional.empty(), List.of(), false);

        Variant {
            nativeOptions = List.copyOf(nativeOptions);
        }

        boolean any() {
            return jvmOptions.isPresent() || aotCaches.isPresent() || training.isPresent() || !nativeOptions.isEmpty()
                    || discoveryFeatureFile;
        }
    }

    /** An unpacked image: its root filesystem and what its config says to run. */
    record Image(String ref, String digest, Path rootfs, List<String> args, List<String> env, int uid, int gid, String cwd) {

        boolean jvm() {
            return !args.isEmpty() && args.getFirst().endsWith("/java");
        }

        /** From the image's OCI config: {@code Entrypoint} and {@code Cmd}, {@code Env}, {@code User} (uid:gid), {@code WorkingDir}. */
        static Image of(String ref, String digest, Path rootfs, JsonNode imageConfig) {
            JsonNode config = imageConfig.path("config");
            List<String> args = new ArrayList<>();
            config.path("Entrypoint").forEach(a -> args.add(a.asText()));
            config.path("Cmd").forEach(a -> args.add(a.asText()));
            List<String> env = new ArrayList<>();
            config.path("Env").forEach(e -> env.add(e.asText()));
            String[] user = config.path("User").asText("0:0").split(":");
            return new Image(ref, digest, rootfs, args, env, Integer.parseInt(user[0]),
                    Integer.parseInt(user.length > 1 ? user[1] : user[0]), config.path("WorkingDir").asText("/"));
        }
    }

    /**
     * Unpacks the plugin's, discovery's and the exporter's images of {@code ociLayout} under {@code workDir}, and the
     * validator's when the layout holds one.
     */
    static KgpuImages unpack(Path checkout, Path ociLayout, Path workDir, Variant variant) {
        JsonNode index = read(ociLayout.resolve("index.json"));
        try {
            Files.createDirectories(workDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Image> images = new LinkedHashMap<>();
        for (String agent : AGENTS) {
            List<JsonNode> matches = new ArrayList<>();
            index.path("manifests").forEach(m -> {
                String ref = m.path("annotations").path("org.opencontainers.image.ref.name").asText("");
                if (ref.startsWith(agent + "-")) {
                    matches.add(m);
                }
            });
            if (matches.isEmpty() && OPTIONAL_AGENTS.contains(agent)) {
                continue;
            }
            if (matches.size() != 1) {
                throw new BenchmarkException("--kgpu-images was '" + ociLayout + "' but it holds " + matches.size()
                        + " images of the " + agent + " (refs " + agent + "-<version>), not one: build them with"
                        + " deploy/release/images/build-images plugin discovery exporter");
            }
            String ref = matches.getFirst().path("annotations").path("org.opencontainers.image.ref.name").asText();
            String digest = matches.getFirst().path("digest").asText();
            Path bundle = workDir.resolve(agent);
            delete(bundle);
            List<String> unpack = new ArrayList<>(List.of("umoci", "unpack"));
            if (!isRoot()) {
                unpack.add("--rootless");
            }
            unpack.addAll(List.of("--image", ociLayout + ":" + ref, bundle.toString()));
            run(unpack, workDir.resolve(agent + "-unpack.log"));
            images.put(agent, Image.of(ref, digest, bundle.resolve("rootfs"), read(blob(ociLayout, read(blob(ociLayout, digest))
                    .path("config").path("digest").asText()))));
        }
        return new KgpuImages(checkout, ociLayout, images, variant, nameOf(images));
    }

    /**
     * The agents' root filesystems as {@code build-images} assembles them before it adds their AOT caches:
     * {@code <folder>/<agent>/rootfs} and {@code <folder>/<agent>/image-config.json} (the image's OCI config), for
     * each agent whose folder is there; for {@code --train} inside {@code build-images}.
     */
    static KgpuImages inRootfs(Path checkout, Path folder, Variant variant) {
        Map<String, Image> images = new LinkedHashMap<>();
        for (String agent : AGENTS) {
            Path config = folder.resolve(agent).resolve("image-config.json");
            if (Files.isRegularFile(config)) {
                images.put(agent, Image.of(agent, "", folder.resolve(agent).resolve("rootfs"), read(config)));
            }
        }
        if (images.isEmpty()) {
            throw new BenchmarkException("--kgpu-rootfs was '" + folder + "' but it holds no <agent>/image-config.json of "
                    + String.join(", ", AGENTS));
        }
        return new KgpuImages(checkout, folder, images, variant, nameOf(images));
    }

    private static Path blob(Path ociLayout, String digest) {
        return ociLayout.resolve("blobs").resolve(digest.replace(':', '/'));
    }

    /** "kgpu native (images)" or "kgpu JVM (images)", by what the images' entrypoint runs. */
    private static String nameOf(Map<String, Image> images) {
        return images.values().stream().allMatch(Image::jvm) ? "kgpu JVM (images)" : "kgpu native (images)";
    }

    /** Whether these images run a JVM (with an AOT cache to map), not native executables. */
    boolean jvm() {
        return images.values().stream().allMatch(Image::jvm);
    }

    @Override
    public String describe() {
        StringBuilder out = new StringBuilder("kgpu's images from " + ociLayout + ":");
        images.values().forEach(i -> out.append(' ').append(i.ref()).append(" (").append(i.digest(), 0, Math.min(19, i.digest().length()))
                .append(')'));
        variant.jvmOptions().ifPresent(f -> out.append("; jvm.options replaced by ").append(f));
        variant.aotCaches().ifPresent(d -> out.append("; AOT caches replaced by ").append(d).append("/<agent>/app.aot"));
        if (!variant.nativeOptions().isEmpty()) {
            out.append("; native executables started with ").append(String.join(" ", variant.nativeOptions()));
        }
        if (variant.discoveryFeatureFile()) {
            out.append("; discovery writes NFD's feature file (--discovery-sink=file), not the Node's labels");
        }
        return out.toString();
    }

    @Override
    public boolean runs(Role role) {
        return images.containsKey(agentOf(role));
    }

    @Override
    public List<Path> files(Role role) {
        return PageCache.filesUnder(images.get(agentOf(role)).rootfs());
    }

    @Override
    public boolean labelsOnNode() {
        return !variant.discoveryFeatureFile();
    }

    @Override
    public AgentRun.Launch launch(Role role, BenchNode node, int port, Path labelsFile) {
        AgentEnvironment daemonSet = new AgentEnvironment(node.nvmlLibrary(), node.profile(), node.nodeName(), "kgpu",
                "none", "envvar", Optional.empty(), node.api().url(), node.layout(), ValidatorMode.ONESHOT, false);
        Map<String, String> env;
        Image image;
        switch (role) {
            case PLUGIN -> {
                image = images.get("plugin");
                env = daemonSet.of(Agent.PLUGIN, port);
            }
            case DISCOVERY_ONESHOT, DISCOVERY_DAEMON -> {
                image = images.get("discovery");
                env = daemonSet.of(Agent.DISCOVERY, port);  // labels on the Node through the API server
                if (variant.discoveryFeatureFile()) {
                    env.put("KGPU_LABEL_SINK", "file");
                    env.put("GFD_OUTPUT_FILE", labelsFile.toString());
                }
                if (role == Role.DISCOVERY_ONESHOT) {
                    env.put("GFD_ONESHOT", "true");
                } else {
                    env.put("GFD_SLEEP_INTERVAL", "60s");
                }
            }
            case EXPORTER -> {
                image = images.get("exporter");
                env = daemonSet.of(Agent.EXPORTER, port);
                // a training run collects every second, so its ten seconds of scrapes see ten collections
                env.put("DCGM_EXPORTER_INTERVAL", variant.training().isPresent() ? "1000" : EXPORTER_INTERVAL_MS);
            }
            case VALIDATOR_DRIVER -> {
                image = images.get("validator");
                // as the DaemonSet's first init container runs it (deploy/release/kubernetes/validator.yaml)
                env = daemonSet.of(Agent.VALIDATOR, port);
                env.put("COMPONENT", "driver");
                env.put("WITH_WAIT", "true");
            }
            default -> throw new IllegalArgumentException(role.toString());
        }
        env.put("MOCK_NVML_PROFILE_DIR", node.profilesDir().toString());

        List<String> command = new ArrayList<>(List.of(checkout.resolve("deploy/release/images/run-in-rootfs").toString(),
                image.rootfs().toString(), "--cap-drop", "ALL"));
        if (image.uid() != currentUid()) {
            command.addAll(List.of("--unshare-user", "--uid", Integer.toString(image.uid()), "--gid", Integer.toString(image.gid())));
        }
        command.addAll(List.of("--tmpfs", "/tmp",
                "--bind", node.root().toString(), node.root().toString(),
                "--ro-bind", node.profilesDir().toString(), node.profilesDir().toString()));
        String agent = agentOf(role);
        variant.jvmOptions().ifPresent(f -> command.addAll(List.of("--ro-bind", f.toString(), JVM_OPTIONS)));
        variant.aotCaches().map(d -> d.resolve(agent).resolve("app.aot")).ifPresent(f -> {
            if (!Files.isRegularFile(f)) {
                throw new BenchmarkException("--aot-caches was '" + variant.aotCaches().get() + "' but it has no " + agent
                        + "/app.aot (--train=<dir> creates them)");
            }
            command.addAll(List.of("--ro-bind", f.toString(), AOT_CACHE));
        });
        List<String> args = image.args();
        if (!variant.nativeOptions().isEmpty() && !image.jvm()) {
            // a JVM image (the side-by-side layout) keeps its jvm.options, as --jvm-options leaves native images alone
            List<String> withOptions = new ArrayList<>(List.of(args.getFirst()));
            withOptions.addAll(variant.nativeOptions());
            withOptions.addAll(args.subList(1, args.size()));
            args = withOptions;
        }
        if (variant.training().isPresent()) {
            Path out = variant.training().get().resolve(agent);
            mkdirs(out);
            command.addAll(List.of("--bind", out.toString(), TRAINING));
            args = withAotFlags(args, "-XX:AOTMode=record", "-XX:AOTConfiguration=" + TRAINING + "/app.aotconf");
        }
        command.add("--clearenv");
        for (String entry : image.env()) {
            int eq = entry.indexOf('=');
            command.addAll(List.of("--setenv", entry.substring(0, eq), entry.substring(eq + 1)));
        }
        env.forEach((name, value) -> command.addAll(List.of("--setenv", name, value)));
        command.addAll(List.of("--chdir", image.cwd(), "--"));
        command.addAll(args);
        return new AgentRun.Launch(command, Path.of(image.args().getFirst()).getFileName().toString());
    }

    /**
     * After a training run: creates {@code <training>/<agent>/app.aot} from the recorded configuration, in the
     * image's root filesystem with the image's options, as {@code build-images} does; returns the cache's size.
     */
    long createAotCache(String agent, Path log) {
        Image image = images.get(agent);
        Path out = variant.training().orElseThrow().resolve(agent);
        if (!Files.isRegularFile(out.resolve("app.aotconf")) || out.resolve("app.aotconf").toFile().length() == 0) {
            throw new BenchmarkException("the " + agent + " recorded no AOT configuration in " + out);
        }
        List<String> command = new ArrayList<>(List.of(checkout.resolve("deploy/release/images/run-in-rootfs").toString(),
                image.rootfs().toString(), "--bind", out.toString(), TRAINING));
        variant.jvmOptions().ifPresent(f -> command.addAll(List.of("--ro-bind", f.toString(), JVM_OPTIONS)));
        command.add("--");
        command.addAll(withAotFlags(image.args(), "-XX:AOTMode=create", "-XX:AOTConfiguration=" + TRAINING + "/app.aotconf",
                "-XX:AOTCache=" + TRAINING + "/app.aot"));
        run(command, log);
        try {
            return Files.size(out.resolve("app.aot"));
        } catch (IOException e) {
            throw new BenchmarkException("the " + agent + "'s AOT cache was not created; see " + log);
        }
    }

    /** The image's command line with its {@code -XX:AOTCache=...} replaced by {@code flags}. */
    private static List<String> withAotFlags(List<String> args, String... flags) {
        List<String> out = new ArrayList<>();
        boolean replaced = false;
        for (String arg : args) {
            if (arg.startsWith("-XX:AOTCache=")) {
                out.addAll(List.of(flags));
                replaced = true;
            } else {
                if (!replaced && arg.equals("-jar")) {
                    out.addAll(List.of(flags));
                    replaced = true;
                }
                out.add(arg);
            }
        }
        return out;
    }

    static String agentOf(Role role) {
        return switch (role) {
            case PLUGIN -> "plugin";
            case DISCOVERY_ONESHOT, DISCOVERY_DAEMON -> "discovery";
            case EXPORTER -> "exporter";
            case VALIDATOR_DRIVER -> "validator";
        };
    }

    private static void mkdirs(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The image's AOT cache, which every agent must have mapped. */
    static final String AOT_CACHE = "/opt/kgpu/app.aot";
    static final String JVM_OPTIONS = "/opt/kgpu/jvm.options";
    /** Where a training run's recording goes, inside the container. */
    static final String TRAINING = "/kgpu-training";

    private static boolean isRoot() {
        return currentUid() == 0;
    }

    private static int currentUid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode read(Path file) {
        try {
            return JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new BenchmarkException("could not read " + file + ": " + e.getMessage(), e);
        }
    }

    private static void run(List<String> command, Path log) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new BenchmarkException(String.join(" ", command) + " failed; see " + log);
            }
        } catch (IOException e) {
            throw new BenchmarkException("could not run " + command.getFirst() + " (apt-get install -y umoci bubblewrap): "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchmarkException("interrupted");
        }
    }

    static void delete(Path folder) {
        if (!Files.exists(folder)) {
            return;
        }
        try (var files = Files.walk(folder)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}
