package dev.kgpu.simulator.upstream;

import dev.kgpu.agent.Startup;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The command line run-nvidia-agents gives the simulated node, read by the agents' shared loader. */
class NvidiaAgentsNodeOptionsTest {

    @Test
    void readsTheFlagsRunNvidiaAgentsPasses() {
        assertThat(NvidiaAgentsNode.options(new String[] {"--checkout=/src/kgpu", "--profile=dgx-a100",
                "--work-dir=/tmp/nv", "--timeout=90"}))
                .isEqualTo(new Startup.Run<>(new NvidiaAgentsNode.Options(Path.of("/src/kgpu"), "dgx-a100", Path.of("/tmp/nv"),
                        Duration.ofSeconds(90))));
    }

    @Test
    void namesEveryMissingOrBadFlagInOneLine() {
        assertThat(NvidiaAgentsNode.options(new String[] {"--profile=dgx-a100", "--timeout=soon"}))
                .isInstanceOfSatisfying(Startup.Exit.class, exit -> assertThat(exit.stderr())
                        .startsWith("nvidia-agents-node: invalid configuration: ")
                        .contains("--timeout was 'soon'").doesNotContain("\n"));
        assertThat(NvidiaAgentsNode.options(new String[] {"--profile=dgx-a100"}))
                .isInstanceOfSatisfying(Startup.Exit.class, exit -> assertThat(exit.stderr())
                        .contains("--checkout was '' but it is required", "--work-dir was '' but it is required"));
    }
}
