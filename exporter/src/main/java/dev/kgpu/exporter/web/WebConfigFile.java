package dev.kgpu.exporter.web;

import dev.kgpu.config.BoundedFile;
import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import dev.kgpu.config.v1.GoDuration;
import dev.kgpu.config.v1.YamlNode;
import dev.kgpu.config.v1.YamlReader;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.impl.KeyStoreHelper;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;

/**
 * Reads an exporter-toolkit web config file as exporter-toolkit does (strict YAML: an unknown key is an
 * error; relative file paths are relative to the file's folder) and checks everything that could otherwise
 * fail later: the certificate and key are read and must match, the client CA file must hold a
 * certificate, each bcrypt hash must parse, cipher suites must be ones the JDK has. Every problem is one
 * {@link ValidationFailure} naming the field, e.g.
 * {@code tls_server_config.min_version (in /etc/dcgm-exporter/web-config.yaml) was 'TLS14' but it must be one of TLS10, TLS11, TLS12, TLS13}.
 *
 * <p>Differences, each refused with a line rather than served differently: inline {@code cert}, {@code key}
 * and {@code client_ca} (use the {@code _file} forms); the client auth types that accept unverified
 * certificates ({@code RequestClientCert}, {@code RequireAnyClientCert}); a {@code max_version} below TLS 1.2,
 * which the JDK disables.
 */
public final class WebConfigFile {

    /** A web config is a few hundred bytes; a ConfigMap holds at most 1 MiB. */
    static final int MAX_BYTES = 1 << 20;

    private static final List<String> TOP = List.of("tls_server_config", "http_server_config", "basic_auth_users",
            "rate_limit");
    private static final List<String> TLS_KEYS = List.of("cert", "key", "client_ca", "cert_file", "key_file",
            "client_auth_type", "client_ca_file", "cipher_suites", "curve_preferences", "min_version", "max_version",
            "prefer_server_cipher_suites", "client_allowed_sans");
    private static final List<String> HTTP_KEYS = List.of("http2", "headers");
    private static final List<String> RATE_KEYS = List.of("interval", "burst");
    /** exporter-toolkit's {@code extraHTTPHeaders}: the headers one may set, with their allowed values (empty: any). */
    private static final Map<String, List<String>> HEADERS = Map.of(
            "Strict-Transport-Security", List.of(),
            "X-Content-Type-Options", List.of("nosniff"),
            "X-Frame-Options", List.of("deny", "sameorigin"),
            "X-XSS-Protection", List.of(),
            "Content-Security-Policy", List.of());
    private static final Map<String, String> VERSIONS = orderedMap(
            "TLS10", "TLSv1", "TLS11", "TLSv1.1", "TLS12", "TLSv1.2", "TLS13", "TLSv1.3");
    private static final Map<String, String> CURVES = orderedMap(
            "CurveP256", "secp256r1", "CurveP384", "secp384r1", "CurveP521", "secp521r1", "X25519", "x25519");
    /** Go's {@code tls.CipherSuites()}: the names exporter-toolkit accepts (IANA names, as the JDK's). */
    private static final List<String> GO_CIPHER_SUITES = List.of(
            "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
            "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256");
    /** Always on under TLS 1.3: Go does not let them be configured, so neither does the file. */
    private static final List<String> TLS13_SUITES = GO_CIPHER_SUITES.subList(0, 3);
    /** bcrypt's modular crypt form: {@code $2y$10$} then 22 characters of salt and 31 of hash. */
    private static final Pattern BCRYPT = Pattern.compile("\\$2[aby]?\\$(\\d\\d)\\$[./A-Za-z0-9]{53}");

    private final Path file;
    private final List<ValidationFailure> failures = new ArrayList<>();

    private WebConfigFile(Path file) {
        this.file = file;
    }

    /**
     * Reads and checks the web config file {@code path} names.
     *
     * @param property the setting that named it ({@code DCGM_EXPORTER_WEB_CONFIG_FILE}), for messages
     * @throws InvalidConfigException naming every problem found
     */
    public static WebConfig read(Path path, String property) {
        String yaml = BoundedFile.readText(path, MAX_BYTES, property);
        return new WebConfigFile(path.toAbsolutePath()).decode(yaml);
    }

    private WebConfig decode(String yaml) {
        List<ConfigWarning> warnings = new ArrayList<>();
        Optional<YamlNode> document = YamlReader.read(yaml, file.toString(), warnings);
        Map<String, YamlNode> root = document.filter(node -> !isNull(node))
                .map(node -> mapping("", node, TOP)).orElse(Map.of());
        Optional<WebConfig.Tls> tls = tls(root.containsKey("tls_server_config")
                ? mapping("tls_server_config", root.get("tls_server_config"), TLS_KEYS) : Map.of());
        Map<String, YamlNode> http = root.containsKey("http_server_config")
                ? mapping("http_server_config", root.get("http_server_config"), HTTP_KEYS) : Map.of();
        boolean http2 = http.containsKey("http2") ? bool("http_server_config.http2", http.get("http2")) : true;
        Map<String, String> headers = headers(http.get("headers"));
        Map<String, String> users = users(root.get("basic_auth_users"));
        Optional<WebConfig.RateLimit> rateLimit = rateLimit(root.containsKey("rate_limit")
                ? mapping("rate_limit", root.get("rate_limit"), RATE_KEYS) : Map.of());
        if (!failures.isEmpty()) {
            throw new InvalidConfigException(failures);
        }
        return new WebConfig(file, tls, http2, headers, users, rateLimit);
    }

    private Optional<WebConfig.Tls> tls(Map<String, YamlNode> tls) {
        for (String inline : List.of("cert", "key", "client_ca")) {
            if (tls.containsKey(inline)) {
                fail("tls_server_config." + inline, "(inline PEM)", "is not supported by kgpu: put it in a file"
                        + " and name it with " + inline + "_file");
            }
        }
        Optional<Path> cert = path("tls_server_config.cert_file", tls.get("cert_file"));
        Optional<Path> key = path("tls_server_config.key_file", tls.get("key_file"));
        Optional<Path> clientCa = path("tls_server_config.client_ca_file", tls.get("client_ca_file"));
        String authText = tls.containsKey("client_auth_type") ? string("tls_server_config.client_auth_type",
                tls.get("client_auth_type")) : "";
        // exporter-toolkit: TLS is on when any of these is set
        boolean enabled = cert.isPresent() || key.isPresent() || clientCa.isPresent() || !authText.isEmpty();
        List<String> sans = strings("tls_server_config.client_allowed_sans", tls.get("client_allowed_sans"));
        String min = version("tls_server_config.min_version", tls.get("min_version"), "TLS12");
        String max = version("tls_server_config.max_version", tls.get("max_version"), "TLS13");
        List<String> suites = cipherSuites(tls.get("cipher_suites"));
        List<String> groups = new ArrayList<>();
        for (String curve : strings("tls_server_config.curve_preferences", tls.get("curve_preferences"))) {
            if (CURVES.containsKey(curve)) {
                groups.add(CURVES.get(curve));
            } else {
                fail("tls_server_config.curve_preferences", curve, "must be one of " + String.join(", ", CURVES.keySet()));
            }
        }
        if (tls.containsKey("prefer_server_cipher_suites")) {
            bool("tls_server_config.prefer_server_cipher_suites", tls.get("prefer_server_cipher_suites"));
        }
        WebConfig.ClientAuth auth = switch (authText) {
            case "", "NoClientCert" -> WebConfig.ClientAuth.NONE;
            case "VerifyClientCertIfGiven" -> WebConfig.ClientAuth.VERIFY_IF_GIVEN;
            case "RequireAndVerifyClientCert" -> WebConfig.ClientAuth.REQUIRE_AND_VERIFY;
            case "RequestClientCert", "RequireAnyClientCert", "RequireClientCert" -> {
                fail("tls_server_config.client_auth_type", authText, "accepts client certificates without verifying"
                        + " them, which kgpu does not do: use VerifyClientCertIfGiven or RequireAndVerifyClientCert"
                        + " with client_ca_file");
                yield WebConfig.ClientAuth.NONE;
            }
            default -> {
                fail("tls_server_config.client_auth_type", authText, "must be one of NoClientCert,"
                        + " VerifyClientCertIfGiven, RequireAndVerifyClientCert");
                yield WebConfig.ClientAuth.NONE;
            }
        };
        if (!enabled) {
            if (!sans.isEmpty()) {
                fail("tls_server_config.client_allowed_sans", String.join(", ", sans),
                        "needs TLS with a verifying client_auth_type");
            }
            return Optional.empty();
        }
        if (cert.isEmpty()) {
            failures.add(ValidationFailure.missing(field("tls_server_config.cert_file"),
                    "must be set when TLS is on (key_file, client_ca_file or client_auth_type is set)"));
        }
        if (key.isEmpty()) {
            failures.add(ValidationFailure.missing(field("tls_server_config.key_file"),
                    "must be set when TLS is on (cert_file, client_ca_file or client_auth_type is set)"));
        }
        if (clientCa.isPresent() && auth == WebConfig.ClientAuth.NONE && failures.isEmpty()) {
            fail("tls_server_config.client_ca_file", clientCa.get().toString(),
                    "is set without a client_auth_type that verifies client certificates");
        }
        if (!sans.isEmpty() && auth == WebConfig.ClientAuth.NONE) {
            fail("tls_server_config.client_allowed_sans", String.join(", ", sans),
                    "needs a client_auth_type that verifies client certificates");
        }
        List<String> versions = new ArrayList<>(VERSIONS.keySet());
        if (versions.indexOf(min) > versions.indexOf(max)) {
            fail("tls_server_config.min_version", min, "must not be above max_version " + max);
        } else if (versions.indexOf(max) < versions.indexOf("TLS12")) {
            fail("tls_server_config.max_version", max, "must be TLS12 or TLS13: the JDK disables TLS 1.0 and 1.1");
        }
        if (cert.isPresent() && key.isPresent()) {
            checkKeyPair(cert.get(), key.get());
        }
        clientCa.ifPresent(this::checkCa);
        if (!failures.isEmpty()) {
            return Optional.empty();
        }
        // the JDK leaves TLS 1.0 and 1.1 off whatever is listed; list what it may serve
        List<String> protocols = versions.subList(Math.max(versions.indexOf(min), versions.indexOf("TLS12")),
                versions.indexOf(max) + 1).reversed().stream().map(VERSIONS::get).toList();
        return Optional.of(new WebConfig.Tls(cert.get(), key.get(), auth, clientCa, sans, protocols, suites, groups));
    }

    private List<String> cipherSuites(YamlNode node) {
        List<String> names = strings("tls_server_config.cipher_suites", node);
        if (names.isEmpty()) {
            return List.of();
        }
        Set<String> jdk = Set.of(jdkCipherSuites());
        List<String> suites = new ArrayList<>(TLS13_SUITES.stream().filter(jdk::contains).toList());
        for (String name : names) {
            if (!GO_CIPHER_SUITES.contains(name)) {
                fail("tls_server_config.cipher_suites", name, "must be one of Go's tls.CipherSuites(): "
                        + String.join(", ", GO_CIPHER_SUITES));
            } else if (!jdk.contains(name)) {
                fail("tls_server_config.cipher_suites", name, "is not a cipher suite this JDK supports");
            } else if (!suites.contains(name)) {
                suites.add(name);
            }
        }
        return suites;
    }

    private static String[] jdkCipherSuites() {
        try {
            return SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no default TLS context", e);
        }
    }

    /** Go's {@code tls.X509KeyPair}: the certificate and key files must hold a pair whose keys match. */
    private void checkKeyPair(Path cert, Path key) {
        Optional<byte[]> certPem = pem("tls_server_config.cert_file", cert);
        Optional<byte[]> keyPem = pem("tls_server_config.key_file", key);
        if (certPem.isEmpty() || keyPem.isEmpty()) {
            return;
        }
        try {
            KeyStore store = KeyStoreHelper.loadKeyCert(List.of(Buffer.buffer(keyPem.get())),
                    List.of(Buffer.buffer(certPem.get())));
            String alias = Collections.list(store.aliases()).getFirst();
            PrivateKey privateKey = (PrivateKey) store.getKey(alias, KeyStoreHelper.DUMMY_PASSWORD.toCharArray());
            Certificate certificate = store.getCertificate(alias);
            if (!matches(privateKey, certificate)) {
                fail("tls_server_config.key_file", key.toString(), "must hold the private key of the certificate in "
                        + cert);
            }
        } catch (IllegalArgumentException e) {
            // Vert.x's reader: "private key algorithm does not match algorithm of public key ..."
            fail("tls_server_config.key_file", key.toString(), "must hold the private key of the certificate in "
                    + cert + " (" + e.getMessage() + ")");
        } catch (Exception e) {
            fail("tls_server_config.cert_file", cert + ", " + key, "must hold a PEM certificate and its PEM private key"
                    + " in key_file (" + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": "
                    + e.getMessage()) + ")");
        }
    }

    private static boolean matches(PrivateKey key, Certificate certificate) throws Exception {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            case "Ed448" -> "Ed448";
            default -> throw new IllegalArgumentException("unsupported key algorithm " + key.getAlgorithm());
        };
        byte[] probe = "kgpu web config key check".getBytes(StandardCharsets.US_ASCII);
        Signature signer = Signature.getInstance(algorithm);
        signer.initSign(key);
        signer.update(probe);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance(algorithm);
        verifier.initVerify(certificate.getPublicKey());
        verifier.update(probe);
        return verifier.verify(signature);
    }

    private void checkCa(Path ca) {
        pem("tls_server_config.client_ca_file", ca).ifPresent(bytes -> {
            try {
                KeyStore store = KeyStoreHelper.loadCA(Stream.of(Buffer.buffer(bytes)));
                if (store.size() == 0) {
                    fail("tls_server_config.client_ca_file", ca.toString(), "must hold at least one PEM certificate");
                }
            } catch (Exception e) {
                fail("tls_server_config.client_ca_file", ca.toString(), "must hold PEM certificates ("
                        + e.getClass().getSimpleName() + ")");
            }
        });
    }

    private Optional<byte[]> pem(String property, Path path) {
        try {
            return Optional.of(BoundedFile.readBytes(path, MAX_BYTES, field(property)));
        } catch (InvalidConfigException e) {
            failures.addAll(e.failures());
            return Optional.empty();
        }
    }

    private Map<String, String> headers(YamlNode node) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (node == null || isNull(node)) {
            return headers;
        }
        if (!(node instanceof YamlNode.Mapping mapping)) {
            fail("http_server_config.headers", node.render(), "must be a mapping of header to value");
            return headers;
        }
        for (YamlNode.Entry entry : mapping.entries()) {
            String property = "http_server_config.headers." + entry.key();
            String value = string(property, entry.value());
            List<String> allowed = HEADERS.get(entry.key());
            if (allowed == null) {
                fail(property, value, "cannot be configured: exporter-toolkit allows only "
                        + String.join(", ", HEADERS.keySet().stream().sorted().toList()));
            } else if (!allowed.isEmpty() && !allowed.contains(value)) {
                fail(property, value, "must be one of " + String.join(", ", allowed));
            } else {
                headers.put(entry.key(), value);
            }
        }
        return headers;
    }

    private Map<String, String> users(YamlNode node) {
        Map<String, String> users = new LinkedHashMap<>();
        if (node == null || isNull(node)) {
            return users;
        }
        if (!(node instanceof YamlNode.Mapping mapping)) {
            fail("basic_auth_users", node.render(), "must be a mapping of user to bcrypt hash");
            return users;
        }
        for (YamlNode.Entry entry : mapping.entries()) {
            String property = "basic_auth_users." + entry.key();
            String hash = string(property, entry.value());
            var matcher = BCRYPT.matcher(hash);
            if (!matcher.matches()) {
                // the hash is a secret: name its shape, not its text
                fail(property, "<" + hash.length() + " characters>", "must be a bcrypt hash such as"
                        + " 'htpasswd -nBC 10 \"\" | tr -d ':\\n'' prints ($2y$10$ then 53 characters)");
            } else if (Integer.parseInt(matcher.group(1)) < 4 || Integer.parseInt(matcher.group(1)) > 31) {
                fail(property, "$" + matcher.group(1) + "$...", "must have a bcrypt cost between 04 and 31");
            } else {
                users.put(entry.key(), hash);
            }
        }
        return users;
    }

    private Optional<WebConfig.RateLimit> rateLimit(Map<String, YamlNode> rate) {
        Duration interval = Duration.ZERO;
        if (rate.containsKey("interval")) {
            String text = string("rate_limit.interval", rate.get("interval"));
            try {
                interval = GoDuration.parse(text);
                if (interval.isNegative()) {
                    fail("rate_limit.interval", text, "must not be negative");
                }
            } catch (IllegalArgumentException e) {
                fail("rate_limit.interval", text, "must be a Go duration such as 1s or 100ms");
            }
        }
        long burst = 0;
        if (rate.containsKey("burst")) {
            YamlNode node = rate.get("burst");
            Optional<Long> value = node instanceof YamlNode.Scalar scalar ? scalar.longValue() : Optional.empty();
            if (value.isEmpty() || value.get() < 0 || value.get() > Integer.MAX_VALUE) {
                fail("rate_limit.burst", node.render(), "must be a whole number of requests");
            } else {
                burst = value.get();
            }
        }
        if (interval.isZero() || interval.isNegative()) {
            return Optional.empty(); // exporter-toolkit: an interval of 0 turns the limit off
        }
        if (burst < 1) {
            fail("rate_limit.burst", Long.toString(burst), "must be at least 1 when rate_limit.interval is set"
                    + " (with 0 every request would be refused)");
            return Optional.empty();
        }
        return Optional.of(new WebConfig.RateLimit(interval, (int) burst));
    }

    private Map<String, YamlNode> mapping(String property, YamlNode node, List<String> known) {
        Map<String, YamlNode> fields = new LinkedHashMap<>();
        if (isNull(node)) {
            return fields;
        }
        if (!(node instanceof YamlNode.Mapping mapping)) {
            fail(property.isEmpty() ? "the file" : property, node.render(), "must be a mapping");
            return fields;
        }
        for (YamlNode.Entry entry : mapping.entries()) {
            String child = property.isEmpty() ? entry.key() : property + "." + entry.key();
            if (!known.contains(entry.key())) {
                fail(child, entry.value().render(), "is no field of exporter-toolkit's web config"
                        + (property.isEmpty() ? "" : " under " + property) + " (known: " + String.join(", ", known) + ")");
            } else {
                fields.put(entry.key(), entry.value());
            }
        }
        return fields;
    }

    private Optional<Path> path(String property, YamlNode node) {
        if (node == null || isNull(node)) {
            return Optional.empty();
        }
        String text = string(property, node);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        Path path = Path.of(text);
        Path folder = file.getParent();
        return Optional.of(path.isAbsolute() || folder == null ? path : folder.resolve(path));
    }

    private String version(String property, YamlNode node, String fallback) {
        if (node == null || isNull(node)) {
            return fallback;
        }
        String text = string(property, node);
        if (!VERSIONS.containsKey(text)) {
            fail(property, text, "must be one of " + String.join(", ", VERSIONS.keySet()));
            return fallback;
        }
        return text;
    }

    private List<String> strings(String property, YamlNode node) {
        if (node == null || isNull(node)) {
            return List.of();
        }
        if (!(node instanceof YamlNode.Sequence sequence)) {
            fail(property, node.render(), "must be a list");
            return List.of();
        }
        return sequence.items().stream().map(item -> string(property, item)).toList();
    }

    private String string(String property, YamlNode node) {
        if (node instanceof YamlNode.Scalar scalar && scalar.kind() != YamlNode.Kind.NULL) {
            return scalar.text();
        }
        if (node instanceof YamlNode.Scalar) {
            return "";
        }
        fail(property, node.render(), "must be a string, not " + node.kindName());
        return "";
    }

    private boolean bool(String property, YamlNode node) {
        if (node instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Kind.BOOL) {
            return scalar.booleanValue();
        }
        fail(property, node.render(), "must be true or false");
        return false;
    }

    private static boolean isNull(YamlNode node) {
        return node instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Kind.NULL;
    }

    private void fail(String property, String value, String reason) {
        failures.add(new ValidationFailure(field(property), value, reason));
    }

    /** {@code tls_server_config.min_version (in /etc/dcgm-exporter/web-config.yaml)}. */
    private String field(String property) {
        return property + " (in " + file + ")";
    }

    private static Map<String, String> orderedMap(String... pairs) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return Collections.unmodifiableMap(map);
    }
}
