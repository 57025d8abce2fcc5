package dev.kgpu.simulator;

import dev.kgpu.simulator.agents.Agent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class SimulatorOptionsTest {

    @TempDir
    Path root;

    private final Map<String, String> env = new HashMap<>();

    @BeforeEach
    void checkout() throws IOException {
        Files.createDirectories(root.resolve("nvml-ffm/nvml/mock/profiles"));
        Files.writeString(root.resolve("pom.xml"), "<project/>");
        for (String profile : List.of("rtx3060", "dgx-a100", "mig-mixed")) {
            Files.writeString(root.resolve("nvml-ffm/nvml/mock/profiles/" + profile + ".json"), "{}");
        }
    }

    private SimulatorOptions parse(String... args) {
        return SimulatorOptions.parse(List.of(args), env::get, root.resolve("nvml-ffm"));
    }

    @Test
    void defaultsAreTheReadmesNode() {
        SimulatorOptions options = parse();

        assertThat(options.root()).isEqualTo(root);
        assertThat(options.profile()).isEqualTo("dgx-a100");
        assertThat(options.profileFile()).isEqualTo(root.resolve("nvml-ffm/nvml/mock/profiles/dgx-a100.json"));
        assertThat(options.nodeName()).isEqualTo("kgpu-sim-node");
        assertThat(options.workDir()).isEqualTo(root.resolve("deploy/tools/simulator/target/simulated-node"));
        assertThat(options.migStrategy()).isEqualTo("none");
        assertThat(options.deviceListStrategy()).isEqualTo("envvar");
        assertThat(options.cdi()).isFalse();
        assertThat(options.ports()).containsExactlyInAnyOrderEntriesOf(Map.of(Agent.PLUGIN, 8081, Agent.DISCOVERY, 8082,
                Agent.VALIDATOR, 8083, Agent.EXPORTER, 9400));
        assertThat(options.timeout()).isEqualTo(Duration.ofSeconds(120));
        assertThat(options.exitWhenReady()).isFalse();
        assertThat(options.footprintRuns()).isZero();
        assertThat(options.dra()).isFalse();
    }

    @Test
    void flagsWinOverVariablesAndEmptyVariablesAreUnset() {
        env.put("KGPU_SIM_PROFILE", "mig-mixed");
        env.put("KGPU_SIM_NODE_NAME", "");
        env.put("KGPU_SIM_EXPORTER_PORT", "19400");
        env.put("KGPU_SIM_EXIT_WHEN_READY", "true");

        SimulatorOptions options = parse("--profile=rtx3060", "--mig-strategy", "mixed", "--footprint=3");

        assertThat(options.profile()).isEqualTo("rtx3060");
        assertThat(options.nodeName()).isEqualTo("kgpu-sim-node");
        assertThat(options.port(Agent.EXPORTER)).isEqualTo(19400);
        assertThat(options.exitWhenReady()).isTrue();
        assertThat(options.migStrategy()).isEqualTo("mixed");
        assertThat(options.footprintRuns()).isEqualTo(3);
        assertThat(parse("--exit-when-ready").exitWhenReady()).isTrue();
        assertThat(parse("--device-list-strategy=envvar,cdi-cri").cdi()).isTrue();
        assertThat(parse("--exit-when-ready=false").exitWhenReady()).isFalse();
        assertThat(parse("--dra").dra()).isTrue();
        env.put("KGPU_SIM_DRA", "true");
        assertThat(parse().dra()).isTrue();
        assertThat(parse("--dra=false").dra()).isFalse();
    }

    @Test
    void aProfileFileIsTakenByPath() throws IOException {
        Path file = Files.writeString(root.resolve("my-node.json"), "{}");

        assertThat(parse("--profile=" + file).profileFile()).isEqualTo(file);
    }

    @Test
    void everyBadValueIsNamedWithItsValue() {
        SimulatorOptions.OptionsException e = catchThrowableOfType(SimulatorOptions.OptionsException.class,
                () -> parse("--profile=a800", "--node-name=GPU_Node", "--mig-strategy=some", "--device-list-strategy=cdi", "--plugin-port=0",
                        "--timeout=soon", "--exit-when-ready=yes", "--footprint=1000", "--dra=maybe", "--sharing=mig", "--speed=fast", "stray"));

        assertThat(e.problems()).containsExactlyInAnyOrder(
                "argument was 'stray' but it must be an option such as --profile=rtx3060 (see --help)",
                "option was '--speed' but it must be one of [--root, --profile, --node-name, --work-dir, --mig-strategy,"
                        + " --device-list-strategy, --plugin-port, --discovery-port, --validator-port, --exporter-port, --timeout,"
                        + " --exit-when-ready, --footprint, --dra, --sharing] (see --help)",
                "--profile was 'a800' but it must name a profile in " + root.resolve("nvml-ffm/nvml/mock/profiles")
                        + " (dgx-a100, mig-mixed, rtx3060) or a .json file",
                "--node-name was 'GPU_Node' but it must be a DNS subdomain: lower-case letters, digits, '-' and '.', at most 253 characters",
                "--mig-strategy was 'some' but it must be none, single or mixed",
                "--device-list-strategy was 'cdi' but it must be envvar, volume-mounts, cdi-annotations or cdi-cri, or a comma list of them",
                "--plugin-port was '0' but it must be a whole number from 1 to 65535",
                "--timeout was 'soon' but it must be a whole number from 5 to 3600",
                "--exit-when-ready was 'yes' but it must be true or false",
                "--footprint was '1000' but it must be a whole number from 1 to 100",
                "--dra was 'maybe' but it must be true or false",
                "--sharing was 'mig' but it must be none or mps");
    }

    @Test
    void portsMustDiffer() {
        assertThatThrownBy(() -> parse("--discovery-port=9400"))
                .isInstanceOf(SimulatorOptions.OptionsException.class)
                .hasMessageContaining("the agents' ports were [8081, 9400, 9400, 8083] but they must all differ");
    }

    @Test
    void withoutACheckoutTheRootMustBeGiven(@TempDir Path elsewhere) {
        assertThatThrownBy(() -> SimulatorOptions.parse(List.of(), env::get, elsewhere))
                .hasMessageContaining("--root was '' but it must name the kgpu checkout");
        assertThatThrownBy(() -> SimulatorOptions.parse(List.of("--root=" + elsewhere), env::get, elsewhere))
                .hasMessageContaining("--root was '" + elsewhere + "' but it must be the kgpu checkout");
    }

    @Test
    void usageListsEveryOptionWithItsVariable() {
        assertThat(SimulatorOptions.usage()).contains("--profile", "KGPU_SIM_PROFILE", "--exit-when-ready",
                "KGPU_SIM_FOOTPRINT", "-Dkgpu.<option>");
        assertThat(SimulatorOptions.wantsHelp(List.of("--help"))).isTrue();
    }
}
