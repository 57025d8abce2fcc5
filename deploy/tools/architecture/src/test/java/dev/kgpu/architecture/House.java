package dev.kgpu.architecture;

import com.tngtech.archunit.core.domain.JavaClass;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * kgpu's modules as the root {@code pom.xml} lists them (nested aggregators such as {@code nvml-ffm} followed), each
 * with the layer where it lives — the picture at the top of {@code docs/architecture.md}.
 */
final class House {

    /** The layers, named for where their modules live; a module's layer follows from its folder. */
    enum Layer {
        SHARED_LIBRARY("a shared library (nvml-ffm/*)"),
        SIMULATED_CLUSTER("the simulated cluster (deploy/tools/simulated-cluster)"),
        AGENT("an agent"),
        TOOL("a tool (deploy/tools/*)"),
        RELEASE("what ships (deploy/release/*)");

        private final String description;

        Layer(String description) {
            this.description = description;
        }

        /** The layer of the module in {@code path} (relative to the repository, with {@code /}). */
        static Layer of(String path) {
            if (path.equals("nvml-ffm") || path.startsWith("nvml-ffm/")) {
                return SHARED_LIBRARY;
            }
            if (path.equals("deploy/tools/simulated-cluster")) {
                return SIMULATED_CLUSTER;
            }
            if (path.startsWith("deploy/tools/")) {
                return TOOL;
            }
            if (path.startsWith("deploy/release/")) {
                return RELEASE;
            }
            if (!path.contains("/")) {
                return AGENT; // the card's top level holds the agents beside nvml-ffm and deploy
            }
            throw new IllegalStateException("module " + path + " lives in no layer of the house: give it a place in"
                    + " docs/architecture.md's picture and in House.Layer");
        }

        @Override
        public String toString() {
            return description;
        }
    }

    /** One Maven module: its folder relative to the repository ({@code plugin}, {@code nvml-ffm/nvml}) and its layer. */
    record Module(String path, Layer layer, Path directory) {

        Path classes() {
            return directory.resolve("target/classes");
        }

        /** Whether it has main code (an aggregator, the chart or this module has none). */
        boolean hasMainCode() {
            return Files.isDirectory(directory.resolve("src/main/java"));
        }

        /** Its artifactId, the first one its pom.xml names after the parent's. */
        String artifactId() {
            String pom = read(directory.resolve("pom.xml"));
            Matcher id = ARTIFACT_ID.matcher(pom.substring(pom.indexOf("</parent>")));
            if (!id.find()) {
                throw new IllegalStateException(path + "/pom.xml names no artifactId");
            }
            return id.group(1);
        }

        /** Whether {@code javaClass} is this module's main code. */
        boolean holds(JavaClass javaClass) {
            return classFile(javaClass).filter(file -> file.startsWith(classes())).isPresent();
        }

        private static Optional<Path> classFile(JavaClass javaClass) {
            return javaClass.getSource().map(source -> source.getUri())
                    .filter(uri -> "file".equals(uri.getScheme())).map(URI::getPath).map(Path::of);
        }

        @Override
        public String toString() {
            return path;
        }
    }

    private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");
    private static final Pattern ARTIFACT_ID = Pattern.compile("<artifactId>\\s*([^<\\s]+)\\s*</artifactId>");

    private final Path root;
    private final List<Module> modules;
    private final Map<String, Optional<Module>> modulesOfClasses = new ConcurrentHashMap<>();

    private House(Path root, List<Module> modules) {
        this.root = root;
        this.modules = List.copyOf(modules);
    }

    /** The house whose root {@code pom.xml} is in {@code root}. */
    static House of(Path root) {
        Path normalized = root.toAbsolutePath().normalize();
        List<Module> modules = new ArrayList<>();
        collect(normalized, normalized, modules);
        return new House(normalized, modules);
    }

    private static void collect(Path root, Path aggregator, List<Module> into) {
        Matcher module = MODULE.matcher(read(aggregator.resolve("pom.xml")));
        while (module.find()) {
            Path directory = aggregator.resolve(module.group(1)).normalize();
            String path = root.relativize(directory).toString().replace('\\', '/');
            into.add(new Module(path, Layer.of(path), directory));
            collect(root, directory, into);
        }
    }

    Path root() {
        return root;
    }

    List<Module> modules() {
        return modules;
    }

    /** The modules with main code, whose classes the rules read. */
    List<Module> modulesWithCode() {
        return modules.stream().filter(Module::hasMainCode).toList();
    }

    Module module(String path) {
        return modules.stream().filter(m -> m.path().equals(path)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no module " + path + " in " + root.resolve("pom.xml")));
    }

    /** The module whose compiled main classes hold {@code javaClass}; empty for a class of a library or the JDK. */
    Optional<Module> moduleOf(JavaClass javaClass) {
        JavaClass base = javaClass.getBaseComponentType();
        return modulesOfClasses.computeIfAbsent(base.getName(),
                name -> modules.stream().filter(m -> m.holds(base)).findFirst());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
