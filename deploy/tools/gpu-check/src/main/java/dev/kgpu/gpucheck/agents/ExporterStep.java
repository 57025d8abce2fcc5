package dev.kgpu.gpucheck.agents;

import dev.kgpu.gpucheck.compare.ExporterSeries;
import dev.kgpu.gpucheck.compare.Finding;
import dev.kgpu.gpucheck.compare.Agreement;
import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.report.StepResult;
import dev.kgpu.gpucheck.smi.NvidiaSmi;
import dev.kgpu.simulator.agents.Agent;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The exporter, scraped: once it is ready, {@code /metrics} is fetched until every expected default series is
 * there for every GPU (profiling ratios need two collections) or 30 s have passed; that scrape is compared
 * ({@link ExporterSeries}) with nvidia-smi's readings from before the exporter started and right after the
 * scrape, and kept in the report folder.
 */
public final class ExporterStep {

    public static final String STEP = "exporter";
    /** Collection interval given to the exporter (its default is 30 s). */
    public static final String INTERVAL_MS = "1000";
    private static final Duration SERIES_WAIT = Duration.ofSeconds(30);

    private ExporterStep() {
    }

    public static StepOutcome run(CheckContext c, Path metricsCopy) {
        List<Finding> findings = new ArrayList<>();
        AgentSession session = null;
        try {
            int port = AgentSession.freePort();
            Map<String, String> env = c.environment();
            env.put("DCGM_EXPORTER_LISTEN", "127.0.0.1:" + port);
            env.put("DCGM_EXPORTER_INTERVAL", INTERVAL_MS);
            session = new AgentSession(c, Agent.EXPORTER, "first collection served", port, env);
            session.awaitReady();
            List<ExporterSeries.Counter> counters = ExporterSeries.defaultCounters();
            URI uri = URI.create("http://127.0.0.1:" + port + "/metrics");
            String scrape = "";
            long deadline = System.nanoTime() + c.deadline().cap(SERIES_WAIT).toNanos();
            while (true) {
                scrape = scrape(c, uri);
                List<Finding> now = ExporterSeries.compare(scrape, counters, c.nvml(), List.of());
                boolean missing = now.stream().anyMatch(f -> f.agreement() == Agreement.MISMATCH && f.kgpu().equals("absent"));
                if (!missing || System.nanoTime() - deadline > 0) {
                    break;
                }
                LockSupport.parkNanos(Duration.ofMillis(250).toNanos());
            }
            Files.writeString(metricsCopy, scrape, StandardCharsets.UTF_8);
            List<NodeValues> references = new ArrayList<>(c.smiBefore());
            if (c.smi().isPresent()) {
                try {
                    references.add(c.smi().get().read().node());
                } catch (NvidiaSmi.NvidiaSmiException e) {
                    findings.add(new dev.kgpu.gpucheck.compare.Compare(STEP, "node", "nvidia-smi").decided("nvidia-smi after the scrape",
                            "-", "-", "read", Agreement.NOT_COMPARED, e.getMessage()));
                }
            }
            findings.addAll(ExporterSeries.compare(scrape, counters, c.nvml(), references));
            long series = scrape.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).count();
            return AgentSession.end(findings, session, StepResult.Status.RAN, "one scrape of " + series + " series compared");
        } catch (IOException e) {
            return AgentSession.end(findings, session, StepResult.Status.FAILED, "the scrape could not be kept: " + e.getMessage());
        } catch (RuntimeException e) {
            return AgentSession.end(findings, session, StepResult.Status.FAILED, e.getMessage());
        }
    }

    private static String scrape(CheckContext c, URI uri) {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build();
        try {
            HttpResponse<String> response = c.http().send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(uri + " answered HTTP " + response.statusCode());
            }
            return response.body();
        } catch (IOException e) {
            throw new IllegalStateException(uri + " did not answer: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while scraping " + uri, e);
        }
    }
}
