package dev.kgpu.sim.podresources;

import dev.kgpu.agent.Startup;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The fake kubelet's command line (scrape-benchmark.sh starts it), read by the agents' shared loader. */
class FakePodResourcesServerOptionsTest {

    @Test
    void aSocketAndOptionallyAPodPerGpu() {
        assertThat(FakePodResourcesServer.options(new String[] {"--socket=/tmp/k.sock", "--every-gpu"}))
                .isEqualTo(new Startup.Run<>(new FakePodResourcesServer.Options(Path.of("/tmp/k.sock"), true)));
        assertThat(FakePodResourcesServer.options(new String[] {"--socket", "/tmp/k.sock"}))
                .isEqualTo(new Startup.Run<>(new FakePodResourcesServer.Options(Path.of("/tmp/k.sock"), false)));
    }

    @Test
    void withoutASocketOrWithTheOldPositionalFormItSaysWhatIsWrongInOneLine() {
        assertThat(FakePodResourcesServer.options(new String[] {"/tmp/k.sock", "--every-gpu"}))
                .isInstanceOfSatisfying(Startup.Exit.class, exit -> {
                    assertThat(exit.status()).isEqualTo(1);
                    assertThat(exit.stderr()).startsWith("fake-pod-resources: invalid configuration: ")
                            .contains("'/tmp/k.sock'", "--socket was '' but it must name the Unix socket to serve on")
                            .doesNotContain("\n");
                });
    }
}
