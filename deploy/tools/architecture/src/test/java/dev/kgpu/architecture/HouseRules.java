package dev.kgpu.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The house's package rules (the picture at the top of docs/architecture.md), written once over a root package:
 * {@code dev.kgpu} for the real classes (ArchitectureTest), a fixture's package for the deliberately bad classes
 * that prove each rule can fail (HouseRulesCatchViolationsTest). A package family is the first segment under the
 * root: {@code plugin} is everything in {@code dev.kgpu.plugin..}; HouseModulesTest checks that each module's
 * classes live in its own family, so that a rule on packages is a rule on modules.
 */
final class HouseRules {

    /** The agents' package families; no agent imports another (the enforcer checks the same on the modules). */
    static final List<String> AGENTS = List.of("plugin", "discovery", "exporter", "validator");
    /** The shared libraries' families (nvml-ffm/*: nvml, nvidia-config, agent-kit, cdi, kubelet-api). */
    static final List<String> SHARED_LIBRARIES = List.of("nvml", "config", "agent", "cdi", "kubelet");
    /** The workshop's families (deploy/tools/*: simulated-cluster, simulator, gpu-check, benchmarks). */
    static final List<String> TOOLS = List.of("sim", "simulator", "gpucheck", "benchmarks");

    /** The plugin's entry point and wiring (root package, app, settings): they put the node and its front-ends together. */
    static final List<String> PLUGIN_COMPOSITION = List.of("app", "settings");
    /** The plugin's node level: the runtime, the inventory, health and NVIDIA's flags, which every front-end uses. */
    static final List<String> PLUGIN_NODE = List.of("node", "devices", "health", "config");
    /** The node's own adapters (the device source over NVML): only the composition hands them to the node. */
    static final List<String> PLUGIN_NODE_ADAPTERS = List.of("nvml");
    /**
     * The plugin's daemons: components of their own (the {@code mps-control-daemon} mode) whose paths, settings and
     * readiness check a front-end uses as their client. A daemon uses the node level, imports no front-end, and the
     * node imports no daemon.
     */
    static final List<String> PLUGIN_DAEMONS = List.of("mps");

    private final String root;

    HouseRules(String root) {
        this.root = root;
    }

    /** Packages of the given families, each with its sub-packages ({@code dev.kgpu.plugin..}). */
    String[] families(List<String> families) {
        return families.stream().map(family -> root + "." + family + "..").toArray(String[]::new);
    }

    /**
     * No package imports one that imports it back, within a module or across modules. With {@code frozen} one
     * edge is left out: {@code Nvml.open}, the public NVML API's entry point, creates its one implementation,
     * {@code NvmlSession} in nvml's internal package, which implements the API's interfaces (ArchitectureTest says
     * why that edge stays); every other edge between those two packages still closes a cycle here.
     */
    ArchRule noPackageCycles(boolean frozen) {
        var rule = slices().matching(root + ".(**)").namingSlices(root + ".$1").should().beFreeOfCycles();
        if (frozen) {
            rule = rule.ignoreDependency(root + ".nvml.Nvml", root + ".nvml.internal.NvmlSession");
        }
        return rule.because("a package that imports one that imports it back cannot be read, tested or moved alone");
    }

    /** Every main class lives in a family the rules know: a new one gets a place in the picture first. */
    ArchRule everyPackageHasAPlaceInTheHouse() {
        List<String> all = Stream.of(AGENTS, SHARED_LIBRARIES, TOOLS).flatMap(List::stream).toList();
        return classes().should().resideInAnyPackage(families(all))
                .because("every package belongs to a layer of docs/architecture.md's picture (agents "
                        + String.join(", ", AGENTS) + "; shared libraries " + String.join(", ", SHARED_LIBRARIES)
                        + "; tools " + String.join(", ", TOOLS) + "), or the rules below cannot see it");
    }

    /** An agent's main code uses NVML's public API only, no simulated cluster and no other agent. */
    ArchRule agentsUseOnlyWhatShips() {
        List<ArchRule> rules = new ArrayList<>();
        for (String agent : AGENTS) {
            List<String> forbidden = new ArrayList<>(List.of(root + ".nvml.mock..", root + ".nvml.internal..",
                    root + ".sim.."));
            AGENTS.stream().filter(other -> !other.equals(agent)).map(other -> root + "." + other + "..")
                    .forEach(forbidden::add);
            rules.add(noClasses().that().resideInAPackage(root + "." + agent + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(forbidden.toArray(String[]::new))
                    .because("an agent runs on a real node beside the others: the mock NVML and the simulated"
                            + " cluster are for tests and tools, NVML is used through its public API, and no agent"
                            + " reaches into another"));
        }
        return CompositeArchRule.of(rules);
    }

    /** The shared libraries are below everything: they import no agent, no simulated cluster and no tool. */
    ArchRule sharedLibrariesImportNoAgentOrTool() {
        List<String> above = Stream.concat(AGENTS.stream(), TOOLS.stream()).toList();
        return noClasses().that().resideInAnyPackage(families(SHARED_LIBRARIES))
                .should().dependOnClassesThat().resideInAnyPackage(families(above))
                .because("the shared libraries (nvml-ffm/*) are the bottom layer that every agent and tool stands on");
    }

    /** nvidia-config's vocabulary package never imports NVIDIA's config file v1, which is built on it. */
    ArchRule configVocabularyDoesNotKnowV1() {
        return noClasses().that().resideInAPackage(root + ".config")
                .should().dependOnClassesThat().resideInAPackage(root + ".config.v1..")
                .because(root + ".config is the failure vocabulary and bounded reading every setting uses;"
                        + " NVIDIA's config file v1 is built on it, never the reverse");
    }

    /**
     * The plugin's front-end packages: every package directly under the plugin's that is neither the node level,
     * the node's adapters, a daemon nor the composition ({@code deviceplugin}, {@code dra}, and a new sibling such
     * as {@code vgpu} without anyone listing it).
     */
    Set<String> pluginFrontEnds(JavaClasses classes) {
        return pluginPackages(classes, false);
    }

    /** The plugin's daemon packages that hold classes ({@link #PLUGIN_DAEMONS}). */
    Set<String> pluginDaemons(JavaClasses classes) {
        return pluginPackages(classes, true);
    }

    private Set<String> pluginPackages(JavaClasses classes, boolean daemons) {
        Set<String> frontEnds = new TreeSet<>();
        String plugin = root + ".plugin.";
        for (JavaClass javaClass : classes) {
            String name = javaClass.getPackageName();
            if (name.startsWith(plugin)) {
                String first = name.substring(plugin.length()).split("\\.")[0];
                if (daemons ? PLUGIN_DAEMONS.contains(first) : Stream.of(PLUGIN_NODE, PLUGIN_NODE_ADAPTERS,
                        PLUGIN_COMPOSITION, PLUGIN_DAEMONS).noneMatch(l -> l.contains(first))) {
                    frontEnds.add(first);
                }
            }
        }
        return frontEnds;
    }

    /**
     * The plugin is a node runtime with kubelet front-ends: the front-ends are peers that never import one
     * another; the node level imports no front-end (nor the composition, nor its adapters); only the composition
     * puts them together. A daemon ({@link #PLUGIN_DAEMONS}) sits beside the node: the front-ends and the
     * composition may use it, it imports no front-end, and the node imports none. Every layer must hold classes
     * (ArchUnit fails on an empty one).
     */
    ArchRule pluginFrontEndsArePeersOverTheNode(Set<String> frontEnds, Set<String> daemons) {
        String plugin = root + ".plugin";
        List<String> composition = new ArrayList<>(List.of(plugin));
        PLUGIN_COMPOSITION.forEach(p -> composition.add(plugin + "." + p + ".."));
        LayeredArchitecture layers = layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("composition").definedBy(composition.toArray(String[]::new))
                .layer("node").definedBy(PLUGIN_NODE.stream().map(p -> plugin + "." + p + "..").toArray(String[]::new))
                .layer("node adapters").definedBy(PLUGIN_NODE_ADAPTERS.stream().map(p -> plugin + "." + p + "..")
                        .toArray(String[]::new));
        for (String frontEnd : frontEnds) {
            layers = layers.layer("front-end " + frontEnd).definedBy(plugin + "." + frontEnd + "..");
        }
        for (String daemon : daemons) {
            layers = layers.layer("daemon " + daemon).definedBy(plugin + "." + daemon + "..");
        }
        List<String> usersOfTheNode = new ArrayList<>(List.of("composition", "node adapters"));
        frontEnds.forEach(frontEnd -> usersOfTheNode.add("front-end " + frontEnd));
        List<String> usersOfADaemon = new ArrayList<>(usersOfTheNode);
        usersOfADaemon.remove("node adapters");
        daemons.forEach(daemon -> usersOfTheNode.add("daemon " + daemon));
        layers = layers.whereLayer("composition").mayNotBeAccessedByAnyLayer()
                .whereLayer("node adapters").mayOnlyBeAccessedByLayers("composition")
                .whereLayer("node").mayOnlyBeAccessedByLayers(usersOfTheNode.toArray(String[]::new));
        for (String frontEnd : frontEnds) {
            layers = layers.whereLayer("front-end " + frontEnd).mayOnlyBeAccessedByLayers("composition");
        }
        for (String daemon : daemons) {
            layers = layers.whereLayer("daemon " + daemon).mayOnlyBeAccessedByLayers(usersOfADaemon.toArray(String[]::new));
        }
        return layers.because("the front-ends (" + String.join(", ", frontEnds) + ") are peers over the node"
                + " runtime: each imports only the node level (" + String.join(", ", PLUGIN_NODE) + "), the daemons ("
                + String.join(", ", daemons) + ") it is a client of and its own sub-packages, the node imports no"
                + " front-end or daemon, a daemon imports no front-end, and only the entry point, app and settings put"
                + " them together");
    }

    /** The classes of the given families, to show that a rule had something to read. */
    JavaClasses in(JavaClasses classes, List<String> families) {
        return classes.that(JavaClass.Predicates.resideInAnyPackage(families(families)));
    }
}
