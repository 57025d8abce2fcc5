package dev.kgpu.exporter.http;

import dev.kgpu.exporter.web.RateLimiter;
import dev.kgpu.exporter.web.WebConfig;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import org.springframework.security.crypto.bcrypt.BCrypt;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.InstantSource;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * What a web config asks of every request, in exporter-toolkit's order, before any route runs: the rate
 * limit ({@code 429}), the configured headers, the client certificate's SANs ({@code 403}), then basic
 * authentication ({@code 401} with {@code WWW-Authenticate: Basic}).
 *
 * <p>The probe endpoints ({@code /health}, {@code /q/health/*}) need no password, so the kubelet's HTTP
 * probes keep working with basic auth on (dcgm-exporter's Helm chart turns them into TCP probes instead).
 * A bcrypt comparison takes tens of milliseconds: it runs on one {@code exporter-bcrypt} thread, never on the
 * event loop, and its outcome is cached (100 entries) under a SHA-256 of user, hash and password, as
 * exporter-toolkit caches it; an unknown user is compared against a fixed hash, so timing does not tell
 * which users exist. More than 64 comparisons waiting get {@code 429}.
 */
final class WebAccess implements Handler<RoutingContext> {

    /** The kubelet's probes: no password needed. */
    static final Set<String> PROBES = Set.of("/health", "/q/health", "/q/health/live", "/q/health/ready",
            "/q/health/started");
    /** exporter-toolkit's stand-in hash (of "fakepassword") for unknown users. */
    private static final String UNKNOWN_USER_HASH = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";
    private static final int CACHE_SIZE = 100;

    private final WebConfig config;
    private final Optional<RateLimiter> limiter;
    private final Map<String, Boolean> verdicts = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > CACHE_SIZE;
        }
    };
    private final ExecutorService bcrypt = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(64), Thread.ofPlatform().name("exporter-bcrypt").daemon(true).factory());

    WebAccess(WebConfig config, InstantSource clock) {
        this.config = config;
        this.limiter = config.rateLimit().map(limit -> new RateLimiter(limit, clock));
    }

    @Override
    public void handle(RoutingContext context) {
        HttpServerResponse response = context.response();
        if (limiter.isPresent() && !limiter.get().tryAcquire()) {
            end(context, 429, "Too Many Requests");
            return;
        }
        config.headers().forEach(response::putHeader);
        List<String> sans = config.tls().map(WebConfig.Tls::clientAllowedSans).orElse(List.of());
        if (!sans.isEmpty() && !clientCertificateNamesOneOf(context, sans)) {
            end(context, 403, "Forbidden");
            return;
        }
        if (!config.basicAuth() || PROBES.contains(context.normalizedPath())) {
            context.next();
            return;
        }
        Optional<String[]> credentials = credentials(context.request().getHeader(HttpHeaders.AUTHORIZATION));
        if (credentials.isEmpty()) {
            unauthorized(context);
            return;
        }
        String user = credentials.get()[0];
        String password = credentials.get()[1];
        String hash = config.users().getOrDefault(user, UNKNOWN_USER_HASH);
        boolean known = config.users().containsKey(user);
        String key = cacheKey(user, hash, password);
        Boolean verdict;
        synchronized (verdicts) {
            verdict = verdicts.get(key);
        }
        if (verdict != null) {
            decide(context, verdict && known);
            return;
        }
        try {
            bcrypt.execute(() -> {
                boolean ok = checkPassword(password, hash);
                synchronized (verdicts) {
                    verdicts.put(key, ok);
                }
                context.vertx().runOnContext(ignored -> decide(context, ok && known));
            });
        } catch (RejectedExecutionException e) {
            end(context, 429, "Too Many Requests");
        }
    }

    private static void decide(RoutingContext context, boolean allowed) {
        if (allowed) {
            context.next();
        } else {
            unauthorized(context);
        }
    }

    private static boolean checkPassword(String password, String hash) {
        try {
            return BCrypt.checkpw(password, hash);
        } catch (IllegalArgumentException e) {
            return false; // a password over bcrypt's 72 bytes
        }
    }

    /** {@code Authorization: Basic base64(user:password)}, as Go's {@code Request.BasicAuth} reads it. */
    static Optional<String[]> credentials(String header) {
        if (header == null || header.length() < 6 || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return Optional.empty();
        }
        try {
            String decoded = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
            int colon = decoded.indexOf(':');
            return colon < 0 ? Optional.empty()
                    : Optional.of(new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)});
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static String cacheKey(String user, String hash, String password) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String part : List.of(user, hash, password)) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                digest.update(HexFormat.of().formatHex(bytes).getBytes(StandardCharsets.US_ASCII));
                digest.update((byte) ':');
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** exporter-toolkit's {@code client_allowed_sans}: a DNS, email, IP or URI SAN of the client's certificate. */
    private static boolean clientCertificateNamesOneOf(RoutingContext context, List<String> allowed) {
        try {
            List<Certificate> chain = context.request().connection().peerCertificates();
            if (chain == null || chain.isEmpty() || !(chain.getFirst() instanceof X509Certificate client)
                    || client.getSubjectAlternativeNames() == null) {
                return false;
            }
            return client.getSubjectAlternativeNames().stream()
                    .filter(san -> san.size() == 2 && san.get(1) instanceof String)
                    .anyMatch(san -> allowed.contains((String) san.get(1)));
        } catch (SSLPeerUnverifiedException | CertificateParsingException e) {
            return false;
        }
    }

    private static void unauthorized(RoutingContext context) {
        context.response().putHeader("WWW-Authenticate", "Basic");
        end(context, 401, "Unauthorized");
    }

    private static void end(RoutingContext context, int status, String text) {
        context.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
                .end(text + "\n");
    }
}
