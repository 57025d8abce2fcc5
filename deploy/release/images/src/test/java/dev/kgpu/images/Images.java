package dev.kgpu.images;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * What this module's build made, as its POM tells the tests: the repository, build-images' output folder,
 * the version and which agents' images were built ({@code -Dkgpu.images}, "exporter" unless given).
 */
final class Images {

    static final List<String> AGENTS = List.of("plugin", "discovery", "exporter", "validator");

    private Images() {
    }

    static Path root() {
        return Path.of(property("kgpu.root"));
    }

    static Path output() {
        return Path.of(property("kgpu.images.output"));
    }

    static String version() {
        return property("kgpu.version");
    }

    /** {@code native} (the agents' native executables, what ships) or {@code jvm}: build-images' --native or --jvm. */
    static String flavour() {
        String flavour = property("kgpu.images.flavour");
        if (!flavour.equals("native") && !flavour.equals("jvm")) {
            throw new IllegalStateException("kgpu.images.flavour was '" + flavour + "' but it must be native or jvm");
        }
        return flavour;
    }

    static boolean nativeImages() {
        return flavour().equals("native");
    }

    /** The image's own start command: the entrypoint, which the chart's gate and preStop repeat with other arguments. */
    static List<String> command(String agent) {
        return nativeImages() ? List.of("/opt/kgpu/" + agent)
                : List.of("/opt/java/bin/java", "@/opt/kgpu/jvm.options", "-XX:AOTCache=/opt/kgpu/app.aot", "-jar", "/opt/kgpu/quarkus-run.jar");
    }

    /**
     * A file the running agent maps when it runs as its image means: the JVM's AOT cache, or the native
     * executable itself (no JVM in the image to map anything else).
     */
    static String mappedFile(String agent) {
        return nativeImages() ? "/opt/kgpu/" + agent : "/opt/kgpu/app.aot";
    }

    static ImageLayout layout() {
        return ImageLayout.read(output().resolve("oci"));
    }

    /** The agents whose images the build made. */
    static List<String> built() {
        List<String> agents = Arrays.stream(property("kgpu.images").trim().split("[\\s,]+")).toList();
        for (String agent : agents) {
            if (!AGENTS.contains(agent)) {
                throw new IllegalStateException("kgpu.images was '" + property("kgpu.images")
                        + "' but it must list agents out of " + AGENTS);
            }
        }
        return agents;
    }

    /** The mock libnvidia-ml.so.1 and its node profiles, as the parent POM gives every test. */
    static Path mockNvml() {
        return Path.of(environment("KGPU_NVML_LIBRARY"));
    }

    static Path mockProfiles() {
        return Path.of(environment("KGPU_MOCK_PROFILES"));
    }

    /** A program the image tests run, from PATH, or a failure naming the Debian package to install. */
    static Path tool(String name, String debianPackage) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String folder : (path + File.pathSeparator + "/usr/sbin:/sbin").split(File.pathSeparator)) {
            Path candidate = Path.of(folder, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError(name + " is not installed: apt-get install -y " + debianPackage
                + " (.ci/run installs it)");
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(name + " is not set: run the image tests through Maven (deploy/release/images/pom.xml)");
        }
        return value;
    }

    private static String environment(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(name + " is not set: run the image tests through Maven (the parent POM sets it)");
        }
        return value;
    }

    /** Runs a test class only when the build made the agent's image ({@code -Dkgpu.images} lists it). */
    @Target(ElementType.TYPE)
    @Retention(RetentionPolicy.RUNTIME)
    @ExtendWith(BuiltCondition.class)
    @interface WhenBuilt {
        String value();
    }

    static final class BuiltCondition implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getElement().map(e -> e.getAnnotation(WhenBuilt.class)).map(when -> built().contains(when.value())
                    ? ConditionEvaluationResult.enabled("the " + when.value() + " image was built")
                    : ConditionEvaluationResult.disabled("the " + when.value() + " image was not built (-Dkgpu.images="
                    + property("kgpu.images") + "; add " + when.value() + " to test it)"))
                    .orElse(ConditionEvaluationResult.enabled("no @WhenBuilt"));
        }
    }
}
