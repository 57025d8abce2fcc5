package dev.kgpu.images;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** GETs on 127.0.0.1 in HTTP/1.1, as a kubelet probes; {@code null} until the agent answers 200. */
final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private Http() {
    }

    static String get(int port, String path) {
        try {
            HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Whether {@code path} answers 200 with a body saying UP (a Quarkus health endpoint). */
    static boolean up(int port, String path) {
        String body = get(port, path);
        return body != null && body.contains("\"UP\"");
    }
}
