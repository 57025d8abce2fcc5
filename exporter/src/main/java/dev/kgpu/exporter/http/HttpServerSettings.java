package dev.kgpu.exporter.http;

import dev.kgpu.agent.Launch;
import dev.kgpu.exporter.config.ExporterConfig;
import dev.kgpu.exporter.web.WebConfig;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The HTTP server's settings, decided by the entry point before Quarkus starts: the address of
 * {@code DCGM_EXPORTER_LISTEN}, the timeouts, and with a web config, TLS on that same port (plain HTTP is
 * then not served at all) and the {@link WebAccess} checks that run before every route.
 *
 * <p>Quarkus reads its HTTP and TLS settings once, at start, from configuration: {@link #properties}
 * gives them, and the entry point sets them as system properties.
 */
public final class HttpServerSettings {

    /** The named TLS configuration of Quarkus' TLS registry that the HTTP server uses. */
    static final String TLS_NAME = "exporter";

    private HttpServerSettings() {
    }

    /**
     * Applies {@code config}'s address and TLS to the HTTP server Quarkus is about to start; the web config's checks
     * are read by the server's beans from the settings the entry point hands to Quarkus ({@link #web}).
     */
    public static void apply(ExporterConfig config) {
        properties(config).forEach((name, value) -> {
            // the certificate check period may be given as -D (tests shorten it); the rest is the settings'
            if (!name.endsWith(".reload-period") || System.getProperty(name) == null) {
                System.setProperty(name, value);
            }
        });
    }

    /**
     * The web config of the settings the entry point read ({@link Launch#bound}), read while Quarkus starts the HTTP
     * server on the entry point's thread; empty in tests that start Quarkus themselves.
     */
    static Optional<WebConfig> web() {
        return Launch.bound(ExporterConfig.class).flatMap(ExporterConfig::web);
    }

    /** Quarkus' configuration properties for {@code config}'s HTTP server. */
    static Map<String, String> properties(ExporterConfig config) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("quarkus.http.host", config.listenHost().isEmpty() ? "0.0.0.0" : config.listenHost());
        String port = Integer.toString(config.listenPort());
        Optional<WebConfig.Tls> tls = config.web().flatMap(WebConfig::tls);
        if (tls.isEmpty()) {
            properties.put("quarkus.http.port", port);
            return properties;
        }
        WebConfig.Tls t = tls.get();
        // TLS on DCGM_EXPORTER_LISTEN's port, and no plain HTTP port at all
        properties.put("quarkus.http.ssl-port", port);
        properties.put("quarkus.http.insecure-requests", "disabled");
        properties.put("quarkus.http.tls-configuration-name", TLS_NAME);
        String prefix = "quarkus.tls." + TLS_NAME + ".";
        properties.put(prefix + "key-store.pem.server.cert", t.certFile().toString());
        properties.put(prefix + "key-store.pem.server.key", t.keyFile().toString());
        t.clientCaFile().ifPresent(ca -> properties.put(prefix + "trust-store.pem.certs", ca.toString()));
        // certificate rotation (cert-manager, a renewed Secret): the files are read again every minute and new
        // handshakes get the new certificate; exporter-toolkit reads them on every handshake
        properties.put(prefix + "reload-period", "1m");
        properties.put(prefix + "protocols", String.join(",", t.protocols()));
        if (!t.cipherSuites().isEmpty()) {
            properties.put(prefix + "cipher-suites", String.join(",", t.cipherSuites()));
        }
        boolean http2 = config.web().orElseThrow().http2();
        properties.put(prefix + "alpn", Boolean.toString(http2));
        properties.put("quarkus.http.http2", Boolean.toString(http2));
        // client_auth_type: TlsClientAuth sets it on the server (Quarkus fixes quarkus.http.ssl.client-auth at build)
        if (!t.namedGroups().isEmpty()) {
            // curve_preferences: the JDK reads its named groups once, at its first TLS handshake
            properties.put("jdk.tls.namedGroups", String.join(",", t.namedGroups()));
        }
        return properties;
    }
}
