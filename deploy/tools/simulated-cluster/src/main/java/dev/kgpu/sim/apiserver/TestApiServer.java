package dev.kgpu.sim.apiserver;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

import java.net.InetAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * A Kubernetes API server for tests: fabric8's {@link KubernetesMockServer} in CRUD mode (the server Quarkus's
 * Kubernetes test server wraps) on a free loopback port, which also evaluates a list's {@code fieldSelector}
 * ({@link FieldSelector}) as the real API server does, where the CRUD server answers an empty list; a DRA driver
 * finds its node's ResourceSlices with one. A watch's field selector is dropped (the CRUD server would match it against
 * labels and report nothing): the watch hears every object of its kind, and the watcher must filter. Counts requests by method, so a test can tell that nothing was written.
 *
 * <p>Thread-safe.
 */
public final class TestApiServer implements AutoCloseable {

    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final Map<String, AtomicInteger> requests = new java.util.concurrent.ConcurrentHashMap<>();

    private TestApiServer() {
        Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
        Dispatcher crud = new KubernetesMixedDispatcher(expectations);
        this.server = new KubernetesMockServer(new Context(), new MockWebServer(), expectations, new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                requests.computeIfAbsent(request.getMethod(), m -> new AtomicInteger()).incrementAndGet();
                return selected(crud, request);
            }
        }, false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:" + server.getPort())
                .withNamespace("default").withRequestRetryBackoffLimit(0).build();
        this.client = new KubernetesClientBuilder().withConfig(config).build();
    }

    /** Starts a server with nothing in it. */
    public static TestApiServer start() {
        return new TestApiServer();
    }

    /** A client of this server, independent of any kubeconfig. */
    public KubernetesClient client() {
        return client;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    /** How many requests with {@code method} ({@code GET}, {@code PUT}, ...) the server answered so far. */
    public int requests(String method) {
        AtomicInteger count = requests.get(method);
        return count == null ? 0 : count.get();
    }

    /** {@code crud}'s answer to {@code request}, with a list's field selector applied here (the simulated node's too). */
    public static MockResponse selected(Dispatcher crud, RecordedRequest request) {
        if (!"GET".equals(request.getMethod())) {
            return crud.dispatch(request);
        }
        URI uri = URI.create(request.getPath());
        String raw = uri.getRawQuery();
        Map<String, String> query = new HashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int equals = pair.indexOf('=');
                query.put(URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8),
                        equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
            }
        }
        String selector = query.get("fieldSelector");
        String rest = raw == null ? "" : Arrays.stream(raw.split("&")).filter(pair -> !pair.startsWith("fieldSelector="))
                .collect(Collectors.joining("&"));
        if (selector != null && query.containsKey("watch")) {
            // the CRUD server matches a watch's field selector against labels only, so it would report nothing: the
            // watch gets every object of its kind, and a watcher filters what it hears (as the real one may rely on not)
            return crud.dispatch(new RecordedRequest(request.getHttpVersion(), request.method(),
                    uri.getRawPath() + (rest.isEmpty() ? "" : "?" + rest), request.getHeaders(), request.getBody()));
        }
        Optional<FieldSelector> fields = selector == null ? Optional.empty() : FieldSelector.parse(selector);
        if (fields.isEmpty()) {
            return crud.dispatch(request);
        }
        MockResponse response = crud.dispatch(new RecordedRequest(request.getHttpVersion(), request.method(),
                uri.getRawPath() + (rest.isEmpty() ? "" : "?" + rest), request.getHeaders(), request.getBody()));
        if (response.code() != 200 || response.getBody() == null) {
            return response;
        }
        return fields.get().filter(new String(response.getBody().getBytes(), StandardCharsets.UTF_8))
                .map(body -> new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json").setBody(body))
                .orElse(response);
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
