package dev.kgpu.agent.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The Kubernetes kinds a packaged agent's build recorded for the client's serializer (the Kubernetes client extension's
 * {@code @KubernetesResources Class[]}), read from the generated class that records them: in the JVM package's
 * {@code target/quarkus-app/quarkus/generated-bytecode.jar}, or, under the native profile ({@link PackagedAgent#command}),
 * in the runner jar native-image was given ({@code target/*-native-image-source-jar/*-runner.jar}), where every kind
 * recorded is a class the executable keeps. And the kinds the agent lists itself, in
 * {@code META-INF/services/io.fabric8.kubernetes.api.model.KubernetesResource}.
 *
 * <p>The extension takes the model jars' own lists unless {@code quarkus.class-loading.removed-resources} drops them, and
 * Quarkus reads that setting only from the build's application root: a module whose {@code build} goal runs without
 * an earlier {@code generate-code} takes its packaged jar for the root, finds no {@code application.properties} in it,
 * and records every kind (docs/benchmarks.md, "The Kubernetes kinds the agents register"). Stateless.
 */
public final class PackagedKinds {

    private static final String RECORDED = "io/quarkus/runner/recorded/KubernetesResourceBuildStep$kubernetesResourceClasses";
    private static final String LIST = "META-INF/services/io.fabric8.kubernetes.api.model.KubernetesResource";
    private static final Pattern KIND = Pattern.compile("io\\.fabric8\\.kubernetes\\.api\\.model\\.[A-Za-z0-9_.$]+");

    private PackagedKinds() {
    }

    /** The kinds this module's packaged build recorded (the module is the working directory, as for every IT). */
    public static Set<String> recorded() throws IOException {
        Path jar = System.getProperty(PackagedAgent.NATIVE_IMAGE_PATH) != null ? nativeRunnerJar()
                : Path.of("target/quarkus-app/quarkus/generated-bytecode.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar.toAbsolutePath() + " is missing: package the agent first");
        }
        Set<String> kinds = new TreeSet<>();
        int classes = 0;
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry entry : zip.stream().filter(e -> e.getName().startsWith(RECORDED)).toList()) {
                classes++;
                try (InputStream in = zip.getInputStream(entry)) {
                    // class names are constant-pool strings: Latin-1 keeps their bytes one character each
                    Matcher m = KIND.matcher(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1));
                    while (m.find()) {
                        kinds.add(m.group());
                    }
                }
            }
        }
        if (classes == 0) {
            throw new IllegalStateException(jar.toAbsolutePath() + " records no Kubernetes kinds (" + RECORDED + "*)");
        }
        return kinds;
    }

    /** The kinds this module lists itself ({@code src/main/resources}, as packaged in {@code target/classes}). */
    public static Set<String> listed() throws IOException {
        Set<String> kinds = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("target/classes").resolve(LIST))) {
            String kind = line.replaceFirst("#.*", "").trim();
            if (!kind.isEmpty()) {
                kinds.add(kind);
            }
        }
        return kinds;
    }

    private static Path nativeRunnerJar() throws IOException {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> sources = Files.newDirectoryStream(Path.of("target"), "*-native-image-source-jar")) {
            for (Path dir : sources) {
                try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, "*-runner.jar")) {
                    jars.forEach(found::add);
                }
            }
        }
        if (found.size() != 1) {
            throw new IllegalStateException("expected one target/*-native-image-source-jar/*-runner.jar, found " + found);
        }
        return found.get(0);
    }
}
