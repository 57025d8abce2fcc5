package dev.kgpu.gpucheck;

import dev.kgpu.gpucheck.GpuCheckOptions.Step;
import dev.kgpu.gpucheck.agents.CheckContext;
import dev.kgpu.gpucheck.agents.Deadline;
import dev.kgpu.gpucheck.agents.DiscoveryStep;
import dev.kgpu.gpucheck.agents.ExporterStep;
import dev.kgpu.gpucheck.agents.PluginStep;
import dev.kgpu.gpucheck.agents.StepOutcome;
import dev.kgpu.gpucheck.agents.ValidatorStep;
import dev.kgpu.gpucheck.compare.NodeComparison;
import dev.kgpu.gpucheck.node.CallCostLoop;
import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.node.NvmlNodeReader;
import dev.kgpu.gpucheck.report.Report;
import dev.kgpu.gpucheck.report.ReportWriter;
import dev.kgpu.gpucheck.report.StepResult;
import dev.kgpu.gpucheck.smi.NvidiaSmi;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.simulator.agents.AgentLauncher;
import dev.kgpu.simulator.agents.AgentProcess;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/**
 * The check, step by step: read the node through nvml-ffm between two nvidia-smi readings and compare; then
 * the plugin, discovery, the exporter and the validator's driver component, each started as its image starts
 * it, measured and compared; then nvml-ffm's per-call cost. Every wait has a timeout under one deadline, a
 * step that fails is reported and the next one runs, and the report is rewritten after every step, so even
 * a check that is killed leaves what it found.
 */
public final class GpuCheck {

    /** Files of the report folder besides the report itself. */
    public static final String SMI_XML = "nvidia-smi.xml";
    public static final String LABELS = "gfd-labels.txt";
    public static final String METRICS = "metrics.txt";
    public static final String AGENT_LOGS = "agent-logs.txt";
    /** In the work folder: one {@code <pid> <agent>} line per agent started, for the run script's clean-up. */
    public static final String PIDS = "agent-pids";

    private static final Duration NVML_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration SMI_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration AGENT_STEP_MINIMUM = Duration.ofSeconds(15);
    private static final int LOG_LINES = 2000;

    private final GpuCheckOptions options;
    private final Map<String, String> environment;
    private final PrintStream progress;
    private final List<AgentProcess> started = new CopyOnWriteArrayList<>();
    private final ExecutorService nvmlCalls = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("gpu-check-nvml").factory());

    public GpuCheck(GpuCheckOptions options, Map<String, String> environment, PrintStream progress) {
        this.options = options;
        this.environment = Map.copyOf(environment);
        this.progress = progress;
    }

    /** Runs the check and returns its report (also written to the report folder). */
    public Report run() {
        Deadline deadline = Deadline.in(options.timeout());
        createFolders();
        Report report = new Report(options.mode(), Instant.now(), machine());
        Thread hook = Thread.ofPlatform().unstarted(() -> {
            started.forEach(p -> p.stop(Duration.ofSeconds(2)));
            collectLogs();
            ReportWriter.write(options.out(), report);
        });
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            run(report, deadline);
        } finally {
            started.forEach(p -> p.stop(Duration.ofSeconds(10)));
            report.finish();
            collectLogs();
            ReportWriter.write(options.out(), report);
            nvmlCalls.shutdownNow();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // already shutting down: the hook writes the same report
            }
        }
        return report;
    }

    private void run(Report report, Deadline deadline) {
        Optional<NvidiaSmi> smi = options.nvidiaSmi().map(path -> new NvidiaSmi(path, SMI_TIMEOUT));
        List<NodeValues> smiReadings = new ArrayList<>();
        long begin = System.nanoTime();
        progress.println("gpu-check: reading the node through nvml-ffm" + (smi.isPresent() ? " and nvidia-smi" : ""));
        if (smi.isEmpty()) {
            report.step(new StepResult("nvidia-smi", StepResult.Status.SKIPPED,
                    "no nvidia-smi on this machine: nvml-ffm's values are not compared with it", 0));
        } else {
            smi = readSmi(smi.get(), report, smiReadings, true) ? smi : Optional.empty();
        }
        Nvml nvml;
        NodeValues node;
        try {
            nvml = bounded("nvmlInit (Nvml.open)", Nvml::open, deadline);
            String library = libraryPath(nvml);
            node = bounded("reading every GPU through nvml-ffm", () -> NvmlNodeReader.read(nvml, library), deadline);
            report.nvml(node);
            report.note("NVML: " + library + ", driver " + node.system(dev.kgpu.gpucheck.node.Fields.DRIVER_VERSION).show());
        } catch (RuntimeException e) {
            report.step(new StepResult("nvml", StepResult.Status.FAILED, "nvml-ffm could not read the node: " + e.getMessage(), millisSince(begin)));
            progress.println("gpu-check: nvml-ffm could not read the node: " + e.getMessage());
            return;
        }
        try {
            if (smi.isPresent() && readSmi(smi.get(), report, smiReadings, false)) {
                report.findings(NodeComparison.compare(node, smiReadings.getFirst(), smiReadings.getLast()));
            } else if (smi.isPresent()) {
                smi = Optional.empty();
            }
            report.step(new StepResult("nvml", StepResult.Status.RAN, "driver " + node.system("driver_version").show() + ", "
                    + node.gpus().size() + " GPU(s) read" + (smi.isPresent() ? " and compared with nvidia-smi" : ""), millisSince(begin)));
            ReportWriter.write(options.out(), report);
            agentSteps(report, deadline, nvml, node, smi, smiReadings);
            if (options.steps().contains(Step.COST)) {
                cost(report, deadline, nvml);
            } else {
                report.step(new StepResult(Step.COST.id(), StepResult.Status.SKIPPED, "not asked for (--steps)", 0));
            }
        } finally {
            try {
                bounded("nvmlShutdown", () -> {
                    nvml.close();
                    return null;
                }, deadline);
            } catch (RuntimeException e) {
                report.note("nvmlShutdown did not return: " + e.getMessage());
            }
        }
    }

    private void agentSteps(Report report, Deadline deadline, Nvml nvml, NodeValues node, Optional<NvidiaSmi> smi,
                            List<NodeValues> smiReadings) {
        Map<String, String> agentEnv = new LinkedHashMap<>();
        agentEnv.put("KGPU_NVML_LIBRARY", libraryPath(nvml));
        environment.forEach((k, v) -> {
            if (k.startsWith("MOCK_NVML_")) {
                agentEnv.put(k, v);
            }
        });
        AgentLauncher launcher = new AgentLauncher(options.root(), options.agentJava(), AgentLauncher.jvmOptionsFile(options.root()),
                logs(), environment);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        CheckContext context = new CheckContext(options.work(), launcher, http, agentEnv, nvml, node, smi, List.copyOf(smiReadings),
                deadline, options.readyTimeout(), this::started);
        Map<Step, BiFunction<CheckContext, GpuCheckOptions, StepOutcome>> steps = new LinkedHashMap<>();
        steps.put(Step.PLUGIN, (c, o) -> PluginStep.run(c));
        steps.put(Step.DISCOVERY, (c, o) -> DiscoveryStep.run(c, o.out().resolve(LABELS)));
        steps.put(Step.EXPORTER, (c, o) -> ExporterStep.run(c, o.out().resolve(METRICS)));
        steps.put(Step.VALIDATOR, (c, o) -> ValidatorStep.run(c));
        steps.forEach((step, body) -> {
            if (!options.steps().contains(step)) {
                report.step(new StepResult(step.id(), StepResult.Status.SKIPPED, "not asked for (--steps)", 0));
                return;
            }
            if (!deadline.allows(AGENT_STEP_MINIMUM)) {
                report.step(new StepResult(step.id(), StepResult.Status.FAILED, "out of time: "
                        + deadline.remaining().toSeconds() + " s left of --timeout=" + options.timeout().toSeconds(), 0));
                return;
            }
            progress.println("gpu-check: " + step.id());
            long begin = System.nanoTime();
            StepOutcome outcome = body.apply(context, options);
            report.findings(outcome.findings());
            outcome.figures().ifPresent(report::agent);
            report.step(new StepResult(step.id(), outcome.status(), outcome.detail(), millisSince(begin)));
            if (outcome.status() == StepResult.Status.FAILED) {
                progress.println("gpu-check: " + step.id() + " failed: " + outcome.detail());
            }
            ReportWriter.write(options.out(), report);
        });
    }

    private void cost(Report report, Deadline deadline, Nvml nvml) {
        Duration needed = options.costTime().multipliedBy(7).plusSeconds(2);
        if (!deadline.allows(needed)) {
            report.step(new StepResult(Step.COST.id(), StepResult.Status.FAILED, "out of time: "
                    + deadline.remaining().toSeconds() + " s left, the loop needs " + needed.toSeconds() + " s", 0));
            return;
        }
        progress.println("gpu-check: nvml-ffm per-call cost");
        long begin = System.nanoTime();
        try {
            bounded("the per-call cost loop", () -> CallCostLoop.run(nvml, options.costTime()), deadline).forEach(report::cost);
            report.step(new StepResult(Step.COST.id(), StepResult.Status.RAN, "timed loops on GPU 0, "
                    + options.costTime().toMillis() + " ms each", millisSince(begin)));
        } catch (RuntimeException e) {
            report.step(new StepResult(Step.COST.id(), StepResult.Status.FAILED, e.getMessage(), millisSince(begin)));
        }
    }

    /** Reads nvidia-smi once; a failure is a failed step and leaves nvidia-smi out of the rest of the check. */
    private boolean readSmi(NvidiaSmi smi, Report report, List<NodeValues> readings, boolean first) {
        long begin = System.nanoTime();
        try {
            NvidiaSmi.Snapshot snapshot = smi.read();
            readings.add(snapshot.node());
            if (first) {
                report.smi(snapshot.node());
                Files.writeString(options.out().resolve(SMI_XML), snapshot.xml(), StandardCharsets.UTF_8);
                if (!snapshot.computeCapNote().isEmpty()) {
                    report.note(snapshot.computeCapNote());
                }
            }
            return true;
        } catch (NvidiaSmi.NvidiaSmiException e) {
            report.step(new StepResult("nvidia-smi", StepResult.Status.FAILED, e.getMessage(), millisSince(begin)));
            progress.println("gpu-check: nvidia-smi failed: " + e.getMessage());
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs an NVML call on its own thread, so a driver that hangs cannot hang the check. */
    private <T> T bounded(String what, Callable<T> call, Deadline deadline) {
        Future<T> future = nvmlCalls.submit(call);
        Duration limit = deadline.cap(NVML_TIMEOUT);
        try {
            return future.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new IllegalStateException(what + " did not return within " + limit.toSeconds() + " s");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException r ? r : new IllegalStateException(what + " failed: " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + what, e);
        }
    }

    /** The library's file: as loaded, or, when the system loader found it by name, from this process's mappings. */
    static String libraryPath(Nvml nvml) {
        Path path = nvml.libraryPath();
        if (path.isAbsolute()) {
            return path.toString();
        }
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            return maps.map(l -> l.substring(l.lastIndexOf(' ') + 1)).filter(p -> p.contains("libnvidia-ml.so"))
                    .findFirst().orElse(path.toString());
        } catch (IOException | UncheckedIOException e) {
            return path.toString();
        }
    }

    private void started(AgentProcess process) {
        started.add(process);
        try {
            Files.writeString(options.work().resolve(PIDS), process.pid() + " " + process.agent().id() + "\n",
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            progress.println("gpu-check: could not record the " + process.agent().id() + "'s pid: " + e.getMessage());
        }
    }

    private Path logs() {
        return options.work().resolve("logs");
    }

    private void createFolders() {
        try {
            Files.createDirectories(options.out());
            Files.createDirectories(logs());
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + options.out() + " or " + logs() + ": " + e.getMessage(), e);
        }
    }

    /** Every agent's log (their last lines) in one file of the report folder. */
    private synchronized void collectLogs() {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(logs())) {
            for (Path file : files.sorted().toList()) {
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                all.append("==== ").append(file.getFileName()).append(lines.size() > LOG_LINES ? " (last " + LOG_LINES + " lines)" : "")
                        .append(" ====\n");
                lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size()).forEach(l -> all.append(l).append('\n'));
            }
            Files.writeString(options.out().resolve(AGENT_LOGS), all.toString(), StandardCharsets.UTF_8);
        } catch (IOException | UncheckedIOException e) {
            progress.println("gpu-check: could not collect the agents' logs: " + e.getMessage());
        }
    }

    private Map<String, String> machine() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("Host", firstLine(Path.of("/proc/sys/kernel/hostname")).orElse(environment.getOrDefault("HOSTNAME", "unknown")));
        m.put("CPUs", Runtime.getRuntime().availableProcessors() + " (" + cpuInfo("model name").orElse("unknown CPU") + ")");
        m.put("Memory", memTotal());
        m.put("Kernel", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("Java", System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.version")
                + " (agents: " + options.agentJava() + ")");
        m.put("nvidia-smi", options.nvidiaSmi().map(Path::toString).orElse("none"));
        firstLines(options.root().resolve("BUILD-INFO")).ifPresent(info -> m.put("kgpu build", info));
        return m;
    }

    private static Optional<String> cpuInfo(String key) {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(l -> l.startsWith(key)).map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst();
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty();
        }
    }

    private static String memTotal() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
            return lines.filter(l -> l.startsWith("MemTotal:")).map(l -> l.replaceAll("\\D+", ""))
                    .map(kib -> String.format(Locale.ROOT, "%.1f GiB", Long.parseLong(kib) / 1024.0 / 1024.0)).findFirst().orElse("unknown");
        } catch (IOException | UncheckedIOException | NumberFormatException e) {
            return "unknown";
        }
    }

    private static Optional<String> firstLine(Path file) {
        try {
            return Files.readAllLines(file).stream().findFirst().map(String::strip);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> firstLines(Path file) {
        try {
            return Optional.of(String.join("; ", Files.readAllLines(file).stream().map(String::strip).filter(l -> !l.isEmpty()).toList()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static long millisSince(long begin) {
        return (System.nanoTime() - begin) / 1_000_000;
    }
}
