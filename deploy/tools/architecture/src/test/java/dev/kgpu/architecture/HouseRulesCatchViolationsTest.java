package dev.kgpu.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each of HouseRules' rules, run on a small fixture house that breaks it on purpose (the packages under
 * {@code dev.kgpu.architecture.fixtures}, one root per house): the rule must report each bad import, and leave
 * the allowed ones alone. A rule that cannot fail here would pass on anything in ArchitectureTest.
 */
class HouseRulesCatchViolationsTest {

    private static final String FIXTURES = "dev.kgpu.architecture.fixtures";

    @Test
    void aPackageCycleIsReported() {
        List<String> violations = violations(rules("cycle").noPackageCycles(false), "cycle");
        assertReported(violations, "cycle.a.A", "cycle.b.B");
    }

    @Test
    void theFrozenNvmlEdgeHidesNoOtherEdgeOfItsCycle() {
        List<String> violations = violations(rules("frozen").noPackageCycles(true), "frozen");
        assertReported(violations, "frozen.nvml.Devices", "frozen.nvml.internal.Bindings");
        assertNotReported(violations, "frozen.nvml.Nvml.open()");
    }

    @Test
    void aPackageOutsideEveryFamilyIsReported() {
        List<String> violations = violations(rules("place").everyPackageHasAPlaceInTheHouse(), "place");
        assertReported(violations, "place.elsewhere.Stray", "");
        assertThat(violations).hasSize(1);
    }

    @Test
    void anAgentUsingTheMockNvmlsInternalsTheSimulatedClusterOrAnotherAgentIsReported() {
        List<String> violations = violations(rules("agents").agentsUseOnlyWhatShips(), "agents");
        assertReported(violations, "agents.plugin.UsesMock", "agents.nvml.mock.MockNvml");
        assertReported(violations, "agents.discovery.UsesInternal", "agents.nvml.internal.Bindings");
        assertReported(violations, "agents.exporter.UsesSim", "agents.sim.kubelet.Kubelet");
        assertReported(violations, "agents.validator.UsesPlugin", "agents.plugin.UsesApi");
        assertNotReported(violations, "agents.nvml.Api"); // NVML's public API is what agents use
    }

    @Test
    void aSharedLibraryUsingAnAgentOrAToolIsReported() {
        List<String> violations = violations(rules("shared").sharedLibrariesImportNoAgentOrTool(), "shared");
        assertReported(violations, "shared.cdi.UsesPlugin", "shared.plugin.Plugin");
        assertReported(violations, "shared.agent.UsesSimulator", "shared.simulator.Simulator");
        assertNotReported(violations, "shared.kubelet.UsesNvml"); // a shared library may use another
    }

    @Test
    void theConfigVocabularyUsingV1IsReportedAndNotTheReverse() {
        List<String> violations = violations(rules("config").configVocabularyDoesNotKnowV1(), "config");
        assertReported(violations, "config.config.Vocabulary", "config.config.v1.Schema");
        assertThat(violations).hasSize(1);
    }

    @Test
    void theMpsDaemonBesideTheNodeServesTheDevicePluginAsItsClientAndBreaksNothing() {
        HouseRules rules = rules("mps");
        JavaClasses classes = classes("mps");
        assertThat(rules.pluginFrontEnds(classes)).containsExactly("deviceplugin", "dra");
        assertThat(rules.pluginDaemons(classes)).containsExactly("mps");
        assertThat(violations(rules.pluginFrontEndsArePeersOverTheNode(rules.pluginFrontEnds(classes),
                rules.pluginDaemons(classes)), "mps")).isEmpty();
    }

    @Test
    void aThirdFrontEndNobodyListedIsAPeerToo() {
        assertThat(new HouseRules(FIXTURES + ".vgpu").pluginFrontEnds(classes("vgpu")))
                .containsExactly("deviceplugin", "vgpu");
    }

    @Test
    void aFrontEndImportingItsPeerAndTheNodeImportingAFrontEndAreReported() {
        HouseRules rules = rules("badplugin");
        JavaClasses classes = classes("badplugin");
        List<String> violations = violations(rules.pluginFrontEndsArePeersOverTheNode(
                rules.pluginFrontEnds(classes), rules.pluginDaemons(classes)), "badplugin");
        assertReported(violations, "badplugin.plugin.dra.Dra", "badplugin.plugin.deviceplugin.DevicePlugin");
        assertReported(violations, "badplugin.plugin.node.Node", "badplugin.plugin.mps.Mps");
        assertReported(violations, "badplugin.plugin.mps.Mps", "badplugin.plugin.dra.Dra");
        assertThat(violations).hasSize(3);
    }

    @Test
    void anEmptyFrontEndLayerIsReportedNotPassed() {
        List<String> violations = violations(rules("mps").pluginFrontEndsArePeersOverTheNode(
                Set.of("deviceplugin", "dra", "vgpu"), Set.of("mps")), "mps");
        assertReported(violations, "front-end vgpu", "empty");
    }

    private static HouseRules rules(String fixture) {
        return new HouseRules(FIXTURES + "." + fixture);
    }

    private static JavaClasses classes(String fixture) {
        JavaClasses classes = new ClassFileImporter().importPackages(FIXTURES + "." + fixture);
        assertThat(classes).as("the fixture " + fixture + "'s classes").hasSizeGreaterThanOrEqualTo(2);
        return classes;
    }

    /** The rule's violations on the fixture's classes, one entry each. */
    private static List<String> violations(ArchRule rule, String fixture) {
        return rule.evaluate(classes(fixture)).getFailureReport().getDetails();
    }

    private static void assertReported(List<String> violations, String origin, String target) {
        assertThat(violations).as("violations naming " + origin + " and " + target)
                .anySatisfy(line -> assertThat(line).contains(origin).contains(target));
    }

    private static void assertNotReported(List<String> violations, String name) {
        assertThat(violations).as("violations naming " + name).noneSatisfy(line -> assertThat(line).contains(name));
    }
}
