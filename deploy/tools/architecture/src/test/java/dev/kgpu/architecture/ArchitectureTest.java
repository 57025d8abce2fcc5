package dev.kgpu.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.kgpu.architecture.House.Layer;
import dev.kgpu.architecture.House.Module;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The house's package rules (HouseRules), checked on the compiled main classes of every module the root pom.xml
 * lists (docs/architecture.md opens with the picture they keep true). Maven's enforcer checks the layers between
 * modules (the root pom.xml); these rules see what a dependency cannot: packages. HouseRulesCatchViolationsTest
 * shows that each rule fails on a house that breaks it; here each test also shows that its rule read enough
 * classes to mean something.
 */
class ArchitectureTest {

    /** The package family (under {@code dev.kgpu}) of each module with main code. */
    private static final Map<String, String> FAMILIES = Map.ofEntries(
            Map.entry("nvml-ffm/nvml", "nvml"), Map.entry("nvml-ffm/nvidia-config", "config"),
            Map.entry("nvml-ffm/agent-kit", "agent"), Map.entry("nvml-ffm/cdi", "cdi"),
            Map.entry("nvml-ffm/kubelet-api", "kubelet"),
            Map.entry("plugin", "plugin"), Map.entry("discovery", "discovery"), Map.entry("exporter", "exporter"),
            Map.entry("validator", "validator"),
            Map.entry("deploy/tools/simulated-cluster", "sim"), Map.entry("deploy/tools/simulator", "simulator"),
            Map.entry("deploy/tools/gpu-check", "gpucheck"), Map.entry("deploy/tools/benchmarks", "benchmarks"));

    private static final HouseRules RULES = new HouseRules("dev.kgpu");

    private static House house;
    /** Every module's main classes. */
    private static JavaClasses main;

    @BeforeAll
    static void importEveryModule() {
        house = House.of(Path.of(System.getProperty("kgpu.root", "../../..")));
        List<Path> folders = house.modulesWithCode().stream().map(Module::classes).filter(Files::isDirectory).toList();
        main = new ClassFileImporter().importPaths(folders);
    }

    @Test
    void everyModuleWithCodeIsCompiledBeforeTheseRulesReadIt() {
        String pom = read(house.module("deploy/tools/architecture").directory().resolve("pom.xml"));
        List<String> problems = new ArrayList<>();
        for (Module module : house.modulesWithCode()) {
            if (!pom.contains("<artifactId>" + module.artifactId() + "</artifactId>")) {
                problems.add(module + " is not a dependency of deploy/tools/architecture/pom.xml, so the reactor may"
                        + " build it after these rules read its classes: add it there as the others are");
            }
            if (!Files.isDirectory(module.classes())) {
                problems.add(module + " has main code but no " + module.classes());
            }
        }
        assertThat(problems).isEmpty();
        assertThat(house.modulesWithCode()).extracting(Module::layer).contains(Layer.SHARED_LIBRARY, Layer.AGENT,
                Layer.SIMULATED_CLUSTER, Layer.TOOL);
        assertThat(main.size()).as("main classes read").isGreaterThan(1000);
    }

    /**
     * Each module's classes live in its own package family, and no family in two modules: so the package rules
     * below are rules on modules, and a new module needs a place in the house (and in {@link #FAMILIES}).
     */
    @Test
    void eachModuleKeepsToItsOwnPackages() {
        List<String> problems = new ArrayList<>();
        for (Module module : house.modulesWithCode()) {
            String family = FAMILIES.get(module.path());
            if (family == null) {
                problems.add(module + " has no package family in ArchitectureTest.FAMILIES (and no place in"
                        + " docs/architecture.md's picture)");
                continue;
            }
            Set<String> strays = new TreeSet<>();
            int classes = 0;
            for (JavaClass javaClass : main) {
                if (house.moduleOf(javaClass).filter(module::equals).isPresent()) {
                    classes++;
                    if (!javaClass.getPackageName().equals("dev.kgpu." + family)
                            && !javaClass.getPackageName().startsWith("dev.kgpu." + family + ".")) {
                        strays.add(javaClass.getName());
                    }
                }
            }
            if (classes == 0) {
                problems.add(module + " has main code but none of its classes were read");
            }
            strays.forEach(stray -> problems.add(stray + " is in " + module + " but outside dev.kgpu." + family));
        }
        assertThat(problems).isEmpty();
        assertThat(Set.copyOf(FAMILIES.values())).hasSameSizeAs(FAMILIES.values());
    }

    @Test
    void everyPackageHasAPlaceInTheHouse() {
        RULES.everyPackageHasAPlaceInTheHouse().check(main);
    }

    /**
     * No package imports one that imports it back. One edge is frozen: {@code Nvml.open}, the public API's entry
     * point, creates its one implementation, {@code NvmlSession} in nvml's internal package, which implements the
     * API's interfaces. Breaking it would need a run-time lookup (ServiceLoader or reflection) of the
     * implementation: that hides the edge from the compiler and from this rule instead of removing it, changes
     * how a broken class path fails {@code Nvml.open}, and needs registering for native images. Every other edge
     * between those packages still closes a cycle (HouseRulesCatchViolationsTest), and no other module may import
     * nvml's internals (nvml-ffm/nvml's InternalPackageBoundaryTest, and here for agents).
     */
    @Test
    void noPackageImportsOneThatImportsItBack() {
        RULES.noPackageCycles(true).check(main);
    }

    @Test
    void agentsUseOnlyWhatShips() {
        assertThat(RULES.in(main, HouseRules.AGENTS).size()).as("the agents' classes").isGreaterThan(300);
        RULES.agentsUseOnlyWhatShips().check(main);
    }

    @Test
    void sharedLibrariesImportNoAgentOrTool() {
        assertThat(RULES.in(main, HouseRules.SHARED_LIBRARIES).size()).as("the shared libraries' classes")
                .isGreaterThan(500);
        RULES.sharedLibrariesImportNoAgentOrTool().check(main);
    }

    @Test
    void nvidiaConfigsVocabularyDoesNotKnowTheV1Schema() {
        assertThat(main.that(JavaClass.Predicates.resideInAPackage("dev.kgpu.config")).size())
                .as("dev.kgpu.config's classes").isGreaterThanOrEqualTo(5);
        RULES.configVocabularyDoesNotKnowV1().check(main);
    }

    /**
     * The plugin is a node runtime with kubelet front-ends ({@code deviceplugin}, {@code dra}, and any sibling
     * package that is not the node level, such as a coming {@code mps}): the front-ends are peers, the node imports
     * none of them. Every implementation of the node's {@code FrontEnd} lives in a front-end package.
     */
    @Test
    void thePluginsFrontEndsArePeersOverTheNode() {
        JavaClasses plugin = RULES.in(main, List.of("plugin"));
        Set<String> frontEnds = RULES.pluginFrontEnds(plugin);
        assertThat(frontEnds).contains("deviceplugin", "dra");
        assertThat(RULES.pluginDaemons(plugin)).containsExactly("mps");
        List<String> implementations = plugin.stream()
                .filter(c -> !c.isInterface() && c.isAssignableTo("dev.kgpu.plugin.node.FrontEnd"))
                .map(JavaClass::getName).toList();
        assertThat(implementations).as("the node's FrontEnd implementations").hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(name -> assertThat(frontEnds).as("the front-end packages").anySatisfy(
                        frontEnd -> assertThat(name).startsWith("dev.kgpu.plugin." + frontEnd + ".")));
        for (String layer : List.of("node", "deviceplugin", "dra")) {
            assertThat(plugin.that(JavaClass.Predicates.resideInAPackage("dev.kgpu.plugin." + layer + "..")).size())
                    .as("dev.kgpu.plugin." + layer + "'s classes").isGreaterThanOrEqualTo(10);
        }
        RULES.pluginFrontEndsArePeersOverTheNode(frontEnds, RULES.pluginDaemons(plugin)).check(plugin);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
