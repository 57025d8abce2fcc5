package dev.kgpu.exporter.http;

import dev.kgpu.exporter.testing.Await;
import dev.kgpu.exporter.testing.ExporterProcess;
import dev.kgpu.sim.prometheus.PrometheusServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.impl.KeyStoreHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The packaged exporter with an exporter-toolkit web config ({@code DCGM_EXPORTER_WEB_CONFIG_FILE}): TLS on
 * its one port, client certificates required and verified, basic auth with a bcrypt hash made by
 * {@code htpasswd}, scraped by a real Prometheus (Debian's) over TLS with a client certificate and basic auth.
 * The certificates (a CA, the server's for localhost, a client's) are made by {@code openssl} for each run:
 * exporter-toolkit's own test server certificate lacks the digitalSignature key usage Java's TLS client wants.
 * About 20 s.
 */
class WebConfigIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final Path TOOLKIT = resource("upstream/exporter-toolkit/web/testdata");
    /** {@code htpasswd -nbBC 10 prometheus 'scrape-me'} (Apache 2.4.57). */
    private static final String HASH = "$2y$10$YYkabn8tlzGLj9v/HDBOu.obZPVnLU0bZkX1BrIYvqZdxFGZdTo4S";

    @TempDir
    Path dir;
    /** Set by {@link #certificates}: a CA and the certificates it signed, as PEM files. */
    private Path certs;

    @Test
    void prometheusScrapesOverTlsWithAClientCertificateAndBasicAuth() throws Exception {
        certificates();
        Path web = dir.resolve("web-config.yaml");
        Files.writeString(web, """
                tls_server_config:
                  cert_file: %s
                  key_file: %s
                  client_auth_type: RequireAndVerifyClientCert
                  client_ca_file: %s
                http_server_config:
                  headers:
                    X-Frame-Options: deny
                basic_auth_users:
                  prometheus: %s
                """.formatted(certs.resolve("server.crt"), certs.resolve("server.key"), certs.resolve("ca.crt"), HASH));
        int port = ExporterProcess.freePort();
        try (ExporterProcess exporter = ExporterProcess.start(dir, Map.of("DCGM_EXPORTER_WEB_CONFIG_FILE", web.toString(),
                "DCGM_EXPORTER_LISTEN", "127.0.0.1:" + port))) {
            exporter.awaitOutput("serving ", WAIT);
            String url = "https://localhost:" + port;
            HttpClient withCertificate = client(true);

            // TLS with the client certificate and the password: the metrics, and the configured header
            HttpResponse<String> scrape = get(withCertificate, url + "/metrics", "prometheus", "scrape-me");
            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.body()).contains("DCGM_FI_DEV_GPU_TEMP{");
            assertThat(scrape.headers().firstValue("X-Frame-Options")).contains("deny");
            // a wrong password, or none: 401 with exporter-toolkit's challenge; the probes need no password
            HttpResponse<String> wrong = get(withCertificate, url + "/metrics", "prometheus", "scrape-you");
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(wrong.headers().firstValue("WWW-Authenticate")).contains("Basic");
            assertThat(get(withCertificate, url + "/metrics", null, null).statusCode()).isEqualTo(401);
            assertThat(get(withCertificate, url + "/q/metrics", "nobody", "scrape-me").statusCode()).isEqualTo(401);
            assertThat(get(withCertificate, url + "/health", null, null).statusCode()).isEqualTo(200);
            // no client certificate: the handshake fails
            assertThatThrownBy(() -> get(client(false), url + "/metrics", "prometheus", "scrape-me"))
                    .isInstanceOf(IOException.class);
            // plain HTTP on the TLS port: no answer
            assertThatThrownBy(() -> get(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build(),
                    "http://127.0.0.1:" + port + "/metrics", "prometheus", "scrape-me"))
                    .isInstanceOf(IOException.class);

            try (PrometheusServer prometheus = PrometheusServer.start(dir, job("kgpu", port, true, "scrape-me")
                    + job("wrong-password", port, true, "scrape-you") + job("no-certificate", port, false, "scrape-me"),
                    List.of())) {
                Await.until("Prometheus to scrape all three jobs; its log:\n" + prometheus.log(), WAIT, () ->
                        Stream.of("kgpu", "wrong-password", "no-certificate").allMatch(job ->
                                prometheus.query("up{job=\"" + job + "\"}").contains("\"value\":[")) ? Boolean.TRUE : null);
                assertThat(prometheus.query("up{job=\"kgpu\"}")).contains(",\"1\"]");
                assertThat(prometheus.query("up{job=\"wrong-password\"}")).contains(",\"0\"]");
                assertThat(prometheus.query("up{job=\"no-certificate\"}")).contains(",\"0\"]");
                String temperatures = Await.until("GPU temperatures in Prometheus", WAIT, () -> {
                    String answer = prometheus.query("count(DCGM_FI_DEV_GPU_TEMP{job=\"kgpu\"})");
                    return answer.contains(",\"8\"]") ? answer : null;
                });
                assertThat(temperatures).contains(",\"8\"]");
            }
        }
    }

    @Test
    void aRenewedCertificateIsServedWithoutARestart() throws Exception {
        certificates();
        Path web = dir.resolve("web-config.yaml");
        Files.writeString(web, """
                tls_server_config:
                  cert_file: %s
                  key_file: %s
                """.formatted(certs.resolve("server.crt"), certs.resolve("server.key")));
        int port = ExporterProcess.freePort();
        // the exporter checks the files every minute; one second here
        try (ExporterProcess exporter = ExporterProcess.start(dir, Map.of("DCGM_EXPORTER_WEB_CONFIG_FILE", web.toString(),
                "DCGM_EXPORTER_LISTEN", "127.0.0.1:" + port,
                "JAVA_TOOL_OPTIONS", "-Dquarkus.tls.exporter.reload-period=1s"))) {
            exporter.awaitOutput("serving ", WAIT);
            String url = "https://localhost:" + port + "/metrics";
            BigInteger first = servedSerial(url);

            sign("server", "localhost", List.of("subjectAltName=DNS:localhost,IP:127.0.0.1", "extendedKeyUsage=serverAuth"));
            BigInteger renewed = serial(certs.resolve("server.crt"));
            assertThat(renewed).isNotEqualTo(first);

            // a new client each time: a new connection, a new handshake
            Await.until("the renewed certificate on a new connection", WAIT,
                    () -> servedSerial(url).equals(renewed) ? Boolean.TRUE : null);
        }
    }

    /** The serial number of the certificate the server shows a new client (a new connection). */
    private BigInteger servedSerial(String url) {
        try {
            HttpResponse<String> response = get(client(false), url, null, null);
            return ((X509Certificate) response.sslSession().orElseThrow().getPeerCertificates()[0]).getSerialNumber();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static BigInteger serial(Path pem) throws Exception {
        try (var in = Files.newInputStream(pem)) {
            return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)).getSerialNumber();
        }
    }

    @Test
    void aBadWebConfigStopsTheExporterWithOneLine() throws IOException {
        Path web = dir.resolve("web-config.yaml");
        Files.writeString(web, """
                tls_server_config:
                  cert_file: %s
                  key_file: %s
                  client_auth_type: RequireAnyClientCert
                """.formatted(TOOLKIT.resolve("server.crt"), TOOLKIT.resolve("server.key")));
        try (ExporterProcess exporter = ExporterProcess.start(dir, Map.of(),
                "--web-config-file", web.toString(), "-a", "127.0.0.1:" + ExporterProcess.freePort())) {
            assertThat(exporter.awaitExit(WAIT)).isEqualTo(1);
            List<String> lines = exporter.output().lines().filter(line -> !line.startsWith("WARNING:")).toList();
            assertThat(lines).containsExactly("kgpu-exporter: invalid configuration: tls_server_config.client_auth_type"
                    + " (in " + web + ") was 'RequireAnyClientCert' but it accepts client certificates without verifying"
                    + " them, which kgpu does not do: use VerifyClientCertIfGiven or RequireAndVerifyClientCert with"
                    + " client_ca_file");
        }
    }

    private String job(String name, int port, boolean certificate, String password) {
        return """
                  - job_name: %s
                    scheme: https
                    tls_config:
                      ca_file: %s
                      server_name: localhost
                %s    basic_auth:
                      username: prometheus
                      password: %s
                    static_configs:
                      - targets: ['127.0.0.1:%d']
                """.formatted(name, certs.resolve("ca.crt"), certificate ? """
                      cert_file: %s
                      key_file: %s
                """.formatted(certs.resolve("client.crt"), certs.resolve("client.key")) : "",
                password, port);
    }

    private static HttpResponse<String> get(HttpClient client, String url, String user, String password)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20));
        if (user != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Trusts the test CA; with {@code certificate}, presents the client certificate it signed. */
    private HttpClient client(boolean certificate) throws Exception {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(KeyStoreHelper.loadCA(Stream.of(Buffer.buffer(Files.readAllBytes(certs.resolve("ca.crt"))))));
        KeyManagerFactory keys = null;
        if (certificate) {
            KeyStore store = KeyStoreHelper.loadKeyCert(
                    List.of(Buffer.buffer(Files.readAllBytes(certs.resolve("client.key")))),
                    List.of(Buffer.buffer(Files.readAllBytes(certs.resolve("client.crt")))));
            keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, KeyStoreHelper.DUMMY_PASSWORD.toCharArray());
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** A CA, a server certificate for localhost and 127.0.0.1, and a client certificate, made by openssl. */
    private void certificates() throws IOException, InterruptedException {
        certs = Files.createDirectories(dir.resolve("certs"));
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
                "-out", "ca.crt", "-days", "3650", "-subj", "/CN=kgpu test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        sign("server", "localhost", List.of("subjectAltName=DNS:localhost,IP:127.0.0.1", "extendedKeyUsage=serverAuth"));
        sign("client", "prometheus", List.of("subjectAltName=DNS:prometheus", "extendedKeyUsage=clientAuth"));
    }

    private void sign(String name, String commonName, List<String> extensions) throws IOException, InterruptedException {
        Files.write(certs.resolve(name + ".ext"), java.util.stream.Stream.concat(extensions.stream(),
                Stream.of("keyUsage=critical,digitalSignature,keyEncipherment", "basicConstraints=CA:FALSE")).toList());
        openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", name + ".key",
                "-out", name + ".csr", "-subj", "/CN=" + commonName);
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", name + ".crt", "-days", "3650", "-extfile", name + ".ext");
    }

    private void openssl(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(certs.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as("openssl " + String.join(" ", args) + ": " + output).isZero();
    }

    private static Path resource(String name) {
        try {
            return Path.of(WebConfigIT.class.getClassLoader().getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
