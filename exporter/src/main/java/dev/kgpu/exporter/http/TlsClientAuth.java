package dev.kgpu.exporter.http;

import dev.kgpu.exporter.web.WebConfig;
import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The web config's {@code client_auth_type} on the HTTPS server. Quarkus fixes
 * {@code quarkus.http.ssl.client-auth} when the application is built, so the setting read at start is
 * applied here, when Quarkus creates the server: {@code VerifyClientCertIfGiven} asks for a certificate and
 * verifies the one given, {@code RequireAndVerifyClientCert} refuses the handshake without a verified one.
 */
@ApplicationScoped
public class TlsClientAuth implements HttpServerOptionsCustomizer {

    @Override
    public void customizeHttpsServer(HttpServerOptions options) {
        HttpServerSettings.web().flatMap(WebConfig::tls).ifPresent(tls -> options.setClientAuth(
                switch (tls.clientAuth()) {
                    case NONE -> ClientAuth.NONE;
                    case VERIFY_IF_GIVEN -> ClientAuth.REQUEST;
                    case REQUIRE_AND_VERIFY -> ClientAuth.REQUIRED;
                }));
    }
}
