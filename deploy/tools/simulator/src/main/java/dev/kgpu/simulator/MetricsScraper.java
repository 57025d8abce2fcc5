package dev.kgpu.simulator;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Scrapes the exporter's {@code /metrics} as Prometheus would, and picks a few series out for the summary. */
final class MetricsScraper {

    private final HttpClient http;
    private final URI uri;

    MetricsScraper(HttpClient http, int port) {
        this.http = http;
        this.uri = URI.create("http://127.0.0.1:" + port + "/metrics");
    }

    /** The URL a user scrapes. */
    static String userUrl(int port) {
        return "http://localhost:" + port + "/metrics";
    }

    URI uri() {
        return uri;
    }

    /** The exposition, or {@code ""} when the exporter does not answer 200. */
    String fetch() {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** Up to three series: one with {@code attributedMarker} when given, then power, framebuffer use, SM clock. */
    static List<String> samples(String metrics, Optional<String> attributedMarker) {
        List<String> series = metrics.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).toList();
        List<String> samples = new ArrayList<>();
        attributedMarker.flatMap(marker -> Stream.of("DCGM_FI_DEV_GPU_TEMP{", "")
                .flatMap(prefix -> series.stream().filter(l -> l.startsWith(prefix) && l.contains(marker)))
                .findFirst()).ifPresent(samples::add);
        for (String family : List.of("DCGM_FI_DEV_POWER_USAGE{", "DCGM_FI_DEV_FB_USED{", "DCGM_FI_DEV_SM_CLOCK{")) {
            if (samples.size() >= 3) {
                break;
            }
            series.stream().filter(l -> l.startsWith(family) && !samples.contains(l)).findFirst().ifPresent(samples::add);
        }
        return samples;
    }
}
