package dev.kgpu.exporter.web;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The exporter's web configuration: Prometheus exporter-toolkit's {@code --web.config.file} format, which
 * dcgm-exporter reads from {@code --web-config-file} / {@code DCGM_EXPORTER_WEB_CONFIG_FILE}. Read once at
 * start by {@link WebConfigFile#read}, checked there (certificates and keys loaded, bcrypt hashes parsed), so
 * a running exporter never falls back to plain HTTP or to no authentication. Immutable.
 *
 * @param source    the file it was read from, for messages
 * @param tls       {@code tls_server_config}, when it turns TLS on
 * @param http2     {@code http_server_config.http2} (TLS only)
 * @param headers   {@code http_server_config.headers}, set on every response
 * @param users     {@code basic_auth_users}: user to bcrypt hash; empty means no authentication
 * @param rateLimit {@code rate_limit}, when its interval is not zero
 */
public record WebConfig(Path source, Optional<Tls> tls, boolean http2, Map<String, String> headers,
                        Map<String, String> users, Optional<RateLimit> rateLimit) {

    public WebConfig {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(tls, "tls");
        headers = Map.copyOf(headers);
        users = Map.copyOf(users);
        Objects.requireNonNull(rateLimit, "rateLimit");
    }

    /** Whether requests need a user and password. */
    public boolean basicAuth() {
        return !users.isEmpty();
    }

    /**
     * {@code tls_server_config}, checked: the certificate and key files hold a matching pair, the client CA
     * file holds at least one certificate.
     *
     * @param certFile          {@code cert_file}, resolved against the config file's folder
     * @param keyFile           {@code key_file}, resolved likewise
     * @param clientAuth        {@code client_auth_type}
     * @param clientCaFile      {@code client_ca_file}; without it, client certificates are verified against the
     *                          JDK's trust store, as Go verifies them against the system's roots
     * @param clientAllowedSans {@code client_allowed_sans}: a client certificate must name one of them
     * @param protocols         the JDK's names of the versions from {@code min_version} to {@code max_version}
     * @param cipherSuites      {@code cipher_suites} (IANA names, which Go and the JDK share) plus the TLS 1.3
     *                          suites, which Go does not let one configure; empty means the JDK's defaults
     * @param namedGroups       the JDK's names of {@code curve_preferences}; empty means the JDK's defaults
     */
    public record Tls(Path certFile, Path keyFile, ClientAuth clientAuth, Optional<Path> clientCaFile,
                      List<String> clientAllowedSans, List<String> protocols, List<String> cipherSuites,
                      List<String> namedGroups) {
        public Tls {
            Objects.requireNonNull(certFile, "certFile");
            Objects.requireNonNull(keyFile, "keyFile");
            Objects.requireNonNull(clientAuth, "clientAuth");
            Objects.requireNonNull(clientCaFile, "clientCaFile");
            clientAllowedSans = List.copyOf(clientAllowedSans);
            protocols = List.copyOf(protocols);
            cipherSuites = List.copyOf(cipherSuites);
            namedGroups = List.copyOf(namedGroups);
        }
    }

    /** exporter-toolkit's {@code client_auth_type} values that kgpu serves. */
    public enum ClientAuth {
        /** {@code NoClientCert} or empty: no client certificate is asked for. */
        NONE,
        /** {@code VerifyClientCertIfGiven}: a certificate is asked for and, when given, verified. */
        VERIFY_IF_GIVEN,
        /** {@code RequireAndVerifyClientCert}: a verified certificate is required. */
        REQUIRE_AND_VERIFY
    }

    /**
     * {@code rate_limit}: a token bucket of {@code burst} tokens refilled one every {@code interval}, as
     * Go's {@code rate.NewLimiter(rate.Every(interval), burst)}.
     */
    public record RateLimit(Duration interval, int burst) {
        public RateLimit {
            Objects.requireNonNull(interval, "interval");
        }
    }
}
