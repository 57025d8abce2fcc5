package dev.kgpu.images;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One image run the way a kubelet's runtime runs it, without a daemon: {@code umoci unpack} turns the image
 * into an OCI runtime bundle (its entrypoint, environment, user and working folder from the image config), and
 * {@code runc} runs it with the pod settings the chart gives every container: a read-only root filesystem, no
 * capabilities at all, no new privileges, a tmpfs at {@code /tmp} (the chart's emptyDir), and only the host
 * paths the test mounts. The network is the host's, so the test reaches the agent's port on 127.0.0.1.
 */
final class ImageContainer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String id;
    private final Path work;
    private final Path runcRoot;
    private final Path log;
    private final Process runc;

    private ImageContainer(String id, Path work, Path runcRoot, Path log, Process runc) {
        this.id = id;
        this.work = work;
        this.runcRoot = runcRoot;
        this.log = log;
        this.runc = runc;
    }

    static Builder of(String agent) {
        return new Builder(agent);
    }

    static final class Builder {
        private final String agent;
        private final Map<String, String> env = new LinkedHashMap<>();
        private final List<ObjectNode> mounts = new ArrayList<>();
        private Optional<List<String>> args = Optional.empty();
        private Optional<int[]> user = Optional.empty();

        private Builder(String agent) {
            this.agent = agent;
        }

        Builder env(String name, String value) {
            env.put(name, value);
            return this;
        }

        /** Mounts a host file or folder at {@code target}. */
        Builder bind(Path host, String target, boolean readOnly) {
            ObjectNode mount = JSON.createObjectNode().put("destination", target).put("type", "bind")
                    .put("source", host.toAbsolutePath().toString());
            mount.putArray("options").add("rbind").add(readOnly ? "ro" : "rw");
            mounts.add(mount);
            return this;
        }

        /** The mock libnvidia-ml.so.1 where {@code KGPU_NVML_LIBRARY} names it, and its node profiles. */
        Builder mockNvml(String profile) {
            return bind(Images.mockNvml(), "/opt/nvml/libnvidia-ml.so.1", true)
                    .bind(Images.mockProfiles(), "/opt/nvml/profiles", true)
                    .env("KGPU_NVML_LIBRARY", "/opt/nvml/libnvidia-ml.so.1")
                    .env("MOCK_NVML_PROFILE_DIR", "/opt/nvml/profiles")
                    .env("MOCK_NVML_PROFILE", profile);
        }

        /** Replaces the image's command line (a Kubernetes container's {@code command}). */
        Builder command(List<String> command) {
            this.args = Optional.of(List.copyOf(command));
            return this;
        }

        /** Runs as this user and group instead of the image's (a pod's runAsUser / runAsGroup). */
        Builder user(int uid, int gid) {
            this.user = Optional.of(new int[]{uid, gid});
            return this;
        }

        /** Unpacks the image and starts it. */
        ImageContainer start() {
            return ImageContainer.start(this);
        }

        /** Unpacks the image, runs it to its end and returns its exit status and output. */
        Result run(Duration timeout) {
            try (ImageContainer container = start()) {
                return container.await(timeout);
            }
        }
    }

    /** How a run ended: the container's exit status and everything it printed. */
    record Result(int status, String output) {
    }

    private static ImageContainer start(Builder builder) {
        Path umoci = Images.tool("umoci", "umoci");
        Path runcTool = Images.tool("runc", "runc");
        String id = "kgpu-" + builder.agent + "-" + UUID.randomUUID().toString().substring(0, 8);
        boolean rootless = !isRoot();
        try {
            Path work = Files.createTempDirectory("kgpu-image-" + builder.agent);
            Path bundle = work.resolve("bundle");
            List<String> unpack = new ArrayList<>(List.of(umoci.toString(), "unpack"));
            if (rootless) {
                unpack.add("--rootless");
            }
            unpack.addAll(List.of("--image", Images.output().resolve("oci") + ":" + builder.agent + "-" + Images.version(),
                    bundle.toString()));
            exec(unpack, work.resolve("unpack.log"), Duration.ofMinutes(3));

            Path configFile = bundle.resolve("config.json");
            ObjectNode config = (ObjectNode) JSON.readTree(configFile.toFile());
            ObjectNode process = (ObjectNode) config.get("process");
            process.put("terminal", false);
            process.put("noNewPrivileges", true);
            ObjectNode capabilities = process.putObject("capabilities");
            for (String set : List.of("bounding", "effective", "inheritable", "permitted", "ambient")) {
                capabilities.putArray(set);
            }
            ArrayNode env = (ArrayNode) process.get("env");
            builder.env.forEach((name, value) -> env.add(name + "=" + value));
            builder.user.ifPresent(ids -> {
                ObjectNode user = process.putObject("user");
                user.put("uid", ids[0]);
                user.put("gid", ids[1]);
            });
            builder.args.ifPresent(command -> {
                ArrayNode list = process.putArray("args");
                command.forEach(list::add);
            });
            ((ObjectNode) config.get("root")).put("readonly", true);
            ArrayNode mounts = (ArrayNode) config.get("mounts");
            ObjectNode tmp = mounts.addObject().put("destination", "/tmp").put("type", "tmpfs").put("source", "tmpfs");
            tmp.putArray("options").add("nosuid").add("nodev").add("mode=1777").add("size=16m");
            builder.mounts.forEach(mounts::add);
            // the host's network: the agent's port is the test's 127.0.0.1
            ObjectNode linux = (ObjectNode) config.get("linux");
            ArrayNode namespaces = JSON.createArrayNode();
            linux.path("namespaces").forEach(ns -> {
                if (!"network".equals(ns.path("type").asText())) {
                    namespaces.add(ns);
                }
            });
            linux.set("namespaces", namespaces);
            JSON.writerWithDefaultPrettyPrinter().writeValue(configFile.toFile(), config);

            Path runcRoot = work.resolve("runc");
            Path log = work.resolve("container.log");
            List<String> run = new ArrayList<>(List.of(runcTool.toString(), "--root", runcRoot.toString()));
            if (rootless) {
                run.addAll(List.of("--rootless", "true"));
            }
            run.addAll(List.of("run", "--bundle", bundle.toString(), id));
            Process runc = new ProcessBuilder(run).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            return new ImageContainer(id, work, runcRoot, log, runc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isRoot() {
        return read(Path.of("/proc/self/status")).lines().anyMatch(line -> line.matches("Uid:\\s+0\\s.*"));
    }

    /** The container's main process as the host sees it. */
    long pid() {
        String state = runcOutput("state", id);
        try {
            return JSON.readTree(state).path("pid").asLong();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code /proc/<pid>/status} of the container's main process: Uid, CapEff, NoNewPrivs... */
    Map<String, String> processStatus() {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : read(Path.of("/proc", Long.toString(pid()), "status")).split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /** Whether the container's main process has {@code path} (a path inside the container) mapped. */
    boolean maps(String path) {
        return read(Path.of("/proc", Long.toString(pid()), "maps")).lines().anyMatch(line -> line.endsWith(" " + path));
    }

    boolean running() {
        return runc.isAlive();
    }

    String output() {
        return Files.exists(log) ? read(log) : "";
    }

    /** Waits for the container to end by itself. */
    Result await(Duration timeout) {
        try {
            if (!runc.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("container " + id + " still runs after " + timeout + "; it printed:\n" + output());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        return new Result(runc.exitValue(), output());
    }

    /** Runs a command in the running container, as a kubelet runs an exec hook; returns its status and output. */
    Result exec(List<String> command, Duration timeout) {
        List<String> full = new ArrayList<>(List.of(Images.tool("runc", "runc").toString(), "--root", runcRoot.toString(),
                "exec", id));
        full.addAll(command);
        Path out = work.resolve("exec.out");
        try {
            Process process = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish in " + timeout);
            }
            return new Result(process.exitValue(), read(out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** SIGTERM, as the kubelet stops a container; returns the exit status. */
    int stop(Duration timeout) {
        if (runc.isAlive()) {
            runcOutput("kill", id, "TERM");
        }
        return await(timeout).status();
    }

    @Override
    public void close() {
        try {
            if (runc.isAlive()) {
                stop(Duration.ofSeconds(30));
            }
        } catch (RuntimeException | AssertionError e) {
            runc.destroyForcibly();
        } finally {
            try {
                exec(List.of(Images.tool("runc", "runc").toString(), "--root", runcRoot.toString(), "delete", "--force", id),
                        work.resolve("delete.log"), Duration.ofSeconds(30));
            } catch (RuntimeException | AssertionError e) {
                // nothing left to delete
            }
            delete(work);
        }
    }

    private String runcOutput(String... command) {
        List<String> full = new ArrayList<>(List.of(Images.tool("runc", "runc").toString(), "--root", runcRoot.toString()));
        full.addAll(List.of(command));
        Path out = work.resolve("runc-" + command[0] + ".out");
        exec(full, out, Duration.ofSeconds(30));
        return read(out);
    }

    private static void exec(List<String> command, Path output, Duration timeout) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish in " + timeout);
            }
            if (process.exitValue() != 0) {
                throw new AssertionError(String.join(" ", command) + " exited " + process.exitValue() + ":\n" + read(output));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path folder) {
        if (!Files.exists(folder)) {
            return;
        }
        try (var files = Files.walk(folder)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary folder left behind is harmless
        }
    }
}
