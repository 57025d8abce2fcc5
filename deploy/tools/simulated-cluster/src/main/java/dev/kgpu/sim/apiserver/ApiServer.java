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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The simulated node's Kubernetes API server: fabric8's {@link KubernetesMockServer} in CRUD mode (the server
 * Quarkus's Kubernetes test server wraps) on a loopback port, plus what a user's {@code kubectl} and the
 * agents need from a real one and the CRUD server lacks: API discovery documents for the core group
 * ({@code /api}, {@code /api/v1}, {@code /apis}) and {@code pods/log} from {@link PodLogs}.
 *
 * <p>Thread-safe: the server answers on its own threads; {@link #client()} may be shared.
 */
public final class ApiServer implements AutoCloseable {

    private static final Pattern POD_LOG = Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/]+)/log$");

    private final KubernetesMockServer server;
    private final PodLogs logs;
    private final KubernetesClient client;

    private ApiServer(KubernetesMockServer server, PodLogs logs) {
        this.server = server;
        this.logs = logs;
        this.client = new KubernetesClientBuilder().withConfig(clientConfig(url(server.getPort()))).build();
    }

    /** Starts on 127.0.0.1:{@code port} ({@code 0}: any free port). */
    public static ApiServer start(int port) {
        Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
        PodLogs logs = new PodLogs();
        Dispatcher dispatcher = new SimulatedNodeDispatcher(new KubernetesMixedDispatcher(expectations), logs);
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), expectations,
                dispatcher, false);
        server.init(InetAddress.getLoopbackAddress(), port);
        return new ApiServer(server, logs);
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String url() {
        return url(server.getPort());
    }

    private static String url(int port) {
        return "http://127.0.0.1:" + port;
    }

    /** A client of this server, independent of the user's own kubeconfig and environment. */
    public KubernetesClient client() {
        return client;
    }

    public PodLogs logs() {
        return logs;
    }

    /** A client configuration for {@code url} that reads nothing from {@code ~/.kube} or the environment. */
    static Config clientConfig(String url) {
        return new ConfigBuilder(Config.empty()).withMasterUrl(url).withNamespace("default").build();
    }

    /**
     * Writes a kubeconfig for this server (no credentials: the server has none), atomically, for the agents
     * and for the user's {@code kubectl}.
     */
    public void writeKubeconfig(Path file, String clusterName) {
        String yaml = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: %1$s
                  cluster:
                    server: %2$s
                contexts:
                - name: %1$s
                  context:
                    cluster: %1$s
                    user: %1$s
                    namespace: default
                current-context: %1$s
                users:
                - name: %1$s
                  user: {}
                """.formatted(clusterName, url());
        try {
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(temporary, yaml, StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the kubeconfig " + file, e);
        }
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }

    /** Discovery documents and pod logs first, then expectations, then CRUD. */
    static final class SimulatedNodeDispatcher extends Dispatcher {

        private final Dispatcher crud;
        private final PodLogs logs;

        SimulatedNodeDispatcher(Dispatcher crud, PodLogs logs) {
            this.crud = crud;
            this.logs = logs;
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            MockResponse response = route(request);
            // the CRUD server sends JSON without saying so; kubectl then takes it for protobuf
            if (response.getHeaders().header("Content-Type") == null && response.getWebSocketListener() == null) {
                response.setHeader("Content-Type", "application/json");
            }
            return response;
        }

        private MockResponse route(RecordedRequest request) {
            if (!"GET".equals(request.getMethod())) {
                return crud.dispatch(request);
            }
            URI uri = URI.create(request.getPath());
            String path = uri.getRawPath();
            switch (path) {
                case "/api" -> {
                    return json(200, ApiDiscovery.API_VERSIONS);
                }
                case "/api/v1" -> {
                    return json(200, ApiDiscovery.CORE_V1_RESOURCES);
                }
                case "/apis" -> {
                    return json(200, ApiDiscovery.API_GROUPS);
                }
                case "/apis/" + ApiDiscovery.RESOURCE_GROUP_VERSION -> {
                    return json(200, ApiDiscovery.RESOURCE_V1_RESOURCES);
                }
                case "/openapi/v2", "/openapi/v3" -> {
                    // no schemas: kubectl then validates nothing client-side instead of misreading a list
                    return json(404, ApiDiscovery.notFound(path));
                }
                default -> {
                    Matcher log = POD_LOG.matcher(path);
                    if (log.matches()) {
                        return podLog(log.group(1), log.group(2), query(uri.getRawQuery()));
                    }
                    MockResponse response = selected(request, uri);
                    if (TableView.wanted(path, request.getHeader("Accept"), uri.getRawQuery())) {
                        return table(path, response);
                    }
                    return response;
                }
            }
        }

        /** The CRUD server's answer, with a list's field selector applied here (the CRUD server ignores it). */
        private MockResponse selected(RecordedRequest request, URI uri) {
            return ApiDiscovery.typedList(uri.getRawPath(), TestApiServer.selected(crud, request));
        }

        /** kubectl get's Table of the pods or nodes the CRUD server answered with. */
        private static MockResponse table(String path, MockResponse objects) {
            if (objects.code() != 200 || objects.getBody() == null) {
                return objects;
            }
            return TableView.of(path, new String(objects.getBody().getBytes(), StandardCharsets.UTF_8), Instant.now())
                    .map(table -> json(200, table)).orElse(objects);
        }

        private MockResponse podLog(String namespace, String pod, Map<String, String> query) {
            Optional<String> container = Optional.ofNullable(query.get("container")).filter(c -> !c.isBlank());
            Optional<String> log = logs.get(namespace, pod, container);
            if (log.isEmpty()) {
                String message = "container " + container.map(c -> "\"" + c + "\" ").orElse("") + "in pod \"" + pod
                        + "\" in namespace \"" + namespace + "\" has no log: it is not running on the simulated node"
                        + (container.isEmpty() ? " (or the pod has several containers: give one)" : "");
                return json(400, """
                        {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%s,"reason":"BadRequest","code":400}"""
                        .formatted(ApiDiscovery.quote(message)));
            }
            String text = log.get();
            String tail = query.get("tailLines");
            if (tail != null && tail.matches("[0-9]+")) {
                var lines = text.lines().toList();
                int keep = (int) Math.min(lines.size(), Long.parseLong(tail));
                text = String.join("\n", lines.subList(lines.size() - keep, lines.size())) + (keep > 0 ? "\n" : "");
            }
            return new MockResponse().setResponseCode(200).setHeader("Content-Type", "text/plain").setBody(text);
        }

        private static Map<String, String> query(String raw) {
            Map<String, String> query = new LinkedHashMap<>();
            if (raw == null || raw.isEmpty()) {
                return query;
            }
            for (String pair : raw.split("&")) {
                int equals = pair.indexOf('=');
                String key = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
                String value = equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
                query.put(key, value);
            }
            return query;
        }

        private static MockResponse json(int code, String body) {
            return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json").setBody(body);
        }
    }
}
