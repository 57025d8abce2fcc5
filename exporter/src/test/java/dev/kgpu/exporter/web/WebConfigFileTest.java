package dev.kgpu.exporter.web;

import dev.kgpu.config.InvalidConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.security.crypto.bcrypt.BCrypt;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every web config of exporter-toolkit's own tests ({@code web/testdata}, kept under
 * {@code src/test/resources/upstream/exporter-toolkit}) read as exporter-toolkit reads it: the {@code .good}
 * files accepted, the {@code .bad} ones refused with one line naming the field, except the differences
 * kgpu makes on purpose (listed in {@link #DIFFERENCES}, each with its reason).
 */
class WebConfigFileTest {

    static final Path TESTDATA = resource("upstream/exporter-toolkit/web/testdata");

    /** File to kgpu's outcome where it differs from exporter-toolkit's. */
    static final Map<String, Boolean> DIFFERENCES = Map.of(
            // unverified client certificates: kgpu refuses the config rather than accept any certificate
            "tls_config_noAuth.requireanyclientcert.good.yml", false,
            // inline PEM: kgpu reads certificates and keys from files only
            "tls_config_noAuth.requireanyclientcertkeyinline.good.yml", false,
            "web_config_noAuth_tlsInline.good.yml", false,
            // Go's HTTP/2 wants an AES-128-GCM suite; the JDK serves HTTP/2 with the suite listed
            "web_config_noAuth_noHTTP2Cipher.bad.yml", true,
            // the same content as web_config_noAuth.good.blocking.yml, which exporter-toolkit's tests start (clients
            // without a certificate signed by the system's roots cannot connect): accepted there too, unused by its tests
            "web_config_auth_clientCAs_missing.bad.yml", true,
            // a SAN that matches no client is a runtime refusal (403), not a config error
            "web_config_auth_client_san.bad.yaml", true,
            // burst 0 refuses every request in exporter-toolkit; kgpu refuses the config
            "web_config_rate_limiter_one_second.yaml", false);

    /** Files without .good/.bad in their names, with exporter-toolkit's outcome (its tls_config_test.go). */
    static final Map<String, Boolean> UNNAMED = Map.of(
            "web_config_empty.yml", true,
            "web_config_junk.yml", false,
            "web_config_junk_key.yml", false,
            "web_config_rate_limiter_nonblocking.yaml", true);

    static Stream<Path> configs() throws IOException {
        try (Stream<Path> files = Files.list(TESTDATA)) {
            return files.filter(f -> f.getFileName().toString().matches(".*\\.ya?ml")).sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("configs")
    void readsExporterToolkitsOwnTestConfigsAsItDoes(Path file) {
        String name = file.getFileName().toString();
        boolean upstream = UNNAMED.containsKey(name) ? UNNAMED.get(name) : name.contains(".good");
        boolean expected = DIFFERENCES.getOrDefault(name, upstream);
        if (expected) {
            assertThat(WebConfigFile.read(file, "DCGM_EXPORTER_WEB_CONFIG_FILE")).isNotNull();
        } else {
            assertThatThrownBy(() -> WebConfigFile.read(file, "DCGM_EXPORTER_WEB_CONFIG_FILE"))
                    .isInstanceOf(InvalidConfigException.class)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n")
                            .contains(" (in " + file.toAbsolutePath() + ")"));
        }
    }

    @Test
    void readsTlsClientCertificatesAndUsers() {
        WebConfig config = WebConfigFile.read(TESTDATA.resolve("tls_config_noAuth.requireandverifyclientcert.good.yml"),
                "DCGM_EXPORTER_WEB_CONFIG_FILE");
        WebConfig.Tls tls = config.tls().orElseThrow();
        assertThat(tls.certFile()).isEqualTo(TESTDATA.resolve("server.crt").toAbsolutePath());
        assertThat(tls.clientAuth()).isEqualTo(WebConfig.ClientAuth.REQUIRE_AND_VERIFY);
        assertThat(tls.clientCaFile()).contains(TESTDATA.resolve("client_selfsigned.pem").toAbsolutePath());
        assertThat(tls.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
        assertThat(config.http2()).isTrue();
        assertThat(config.basicAuth()).isFalse();

        WebConfig users = WebConfigFile.read(TESTDATA.resolve("web_config_users.good.yml"), "--web-config-file");
        assertThat(users.users()).containsOnlyKeys("alice", "bob", "carol", "dave");
    }

    @Test
    void checksBcryptHashesMadeByGoAndByHtpasswd() {
        // exporter-toolkit's tls_config_test.go: carol/carol123 and dave/dave123, hashed by Go's bcrypt
        WebConfig users = WebConfigFile.read(TESTDATA.resolve("web_config_users.good.yml"), "--web-config-file");
        assertThat(BCrypt.checkpw("carol123", users.users().get("carol"))).isTrue();
        assertThat(BCrypt.checkpw("dave123", users.users().get("dave"))).isTrue();
        assertThat(BCrypt.checkpw("dave1234", users.users().get("dave"))).isFalse();
        // htpasswd -nbBC 10 prometheus 'scrape-me' and htpasswd -nbBC 4 admin 'pässwörd' (Apache 2.4.57)
        assertThat(BCrypt.checkpw("scrape-me", "$2y$10$YYkabn8tlzGLj9v/HDBOu.obZPVnLU0bZkX1BrIYvqZdxFGZdTo4S")).isTrue();
        assertThat(BCrypt.checkpw("pässwörd", "$2y$04$xtF9NHQOQ5AkGhodlk1AguLtqyo.FkSF7lniOKSw70GqQQKjKjrMy")).isTrue();
        // dcgm-exporter's tests/integration/testdata/web-config.yml: alice/password
        assertThat(BCrypt.checkpw("password", "$2y$10$CWCEbs7mt8QFrToJR9OcG.tduEKpx9SROhWnaDHQgQX4Q6hqWNASa")).isTrue();
    }

    @Test
    void namesTheFieldAndValueOfEachProblemOnOneLine(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("web.yaml");
        Files.writeString(file, """
                tls_server_config:
                  cert_file: %s
                  key_file: %s
                  min_version: TLS14
                  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]
                http_server_config:
                  headers:
                    X-Frame-Options: allow
                basic_auth_users:
                  bob: plaintext
                rate_limt:
                  burst: 1
                """.formatted(TESTDATA.resolve("server.crt"), TESTDATA.resolve("client_selfsigned.key")));

        assertThatThrownBy(() -> WebConfigFile.read(file, "DCGM_EXPORTER_WEB_CONFIG_FILE"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("rate_limt (in " + file + ") was '{burst: 1}' but it is no field of exporter-toolkit's web config")
                .hasMessageContaining("tls_server_config.min_version (in " + file + ") was 'TLS14' but it must be one of TLS10, TLS11, TLS12, TLS13")
                .hasMessageContaining("tls_server_config.cipher_suites (in " + file + ") was 'TLS_RSA_WITH_RC4_128_SHA'")
                .hasMessageContaining("http_server_config.headers.X-Frame-Options (in " + file + ") was 'allow' but it must be one of deny, sameorigin")
                .hasMessageContaining("basic_auth_users.bob (in " + file + ") was '<9 characters>' but it must be a bcrypt hash")
                .hasMessageContaining("tls_server_config.key_file (in " + file + ") was '" + TESTDATA.resolve("client_selfsigned.key")
                        + "' but it must hold the private key of the certificate in " + TESTDATA.resolve("server.crt"))
                .hasMessageNotContaining("plaintext")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void boundsTheFileByTheBytesRead() {
        assertThatThrownBy(() -> WebConfigFile.read(Path.of("/dev/zero"), "DCGM_EXPORTER_WEB_CONFIG_FILE"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("DCGM_EXPORTER_WEB_CONFIG_FILE was '/dev/zero' but it must name a file of at most 1048576 bytes");
        assertThatThrownBy(() -> WebConfigFile.read(Path.of("/nonexistent/web.yaml"), "--web-config-file"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("--web-config-file was '/nonexistent/web.yaml' but it must name a readable file");
    }

    @Test
    void readsTheRateLimitAndAnOrderOfCipherSuitesAndCurves(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("web.yaml");
        Files.writeString(file, """
                tls_server_config:
                  cert_file: %s
                  key_file: %s
                  min_version: TLS10
                  max_version: TLS12
                  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]
                  curve_preferences: [X25519, CurveP256]
                http_server_config:
                  http2: false
                rate_limit:
                  interval: 100ms
                  burst: 5
                """.formatted(TESTDATA.resolve("server.crt"), TESTDATA.resolve("server.key")));

        WebConfig config = WebConfigFile.read(file, "DCGM_EXPORTER_WEB_CONFIG_FILE");

        WebConfig.Tls tls = config.tls().orElseThrow();
        assertThat(tls.protocols()).containsExactly("TLSv1.2");
        assertThat(tls.cipherSuites()).endsWith("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256").contains("TLS_AES_128_GCM_SHA256");
        assertThat(tls.namedGroups()).containsExactly("x25519", "secp256r1");
        assertThat(config.http2()).isFalse();
        assertThat(config.rateLimit()).contains(new WebConfig.RateLimit(Duration.ofMillis(100), 5));
    }

    private static Path resource(String name) {
        try {
            return Path.of(WebConfigFileTest.class.getClassLoader().getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
