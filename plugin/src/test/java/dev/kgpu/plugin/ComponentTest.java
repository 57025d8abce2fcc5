package dev.kgpu.plugin;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The image runs NVIDIA's mps-control-daemon when started as NVIDIA's chart starts it, and the plugin otherwise. */
class ComponentTest {

    static Component.Selected select(Map<String, String> env, Optional<String> program, String... args) {
        return Component.select(args, env::get, program);
    }

    @Test
    void theProgramsNameTheFirstArgumentOrKgpuComponentChooseTheMpsControlDaemon() {
        Component.Selected byName = select(Map.of(), Optional.of("/usr/bin/mps-control-daemon"), "--mig-strategy=single");
        assertThat(byName.component()).isEqualTo(Component.MPS_CONTROL_DAEMON);
        assertThat(byName.args()).containsExactly("--mig-strategy=single");

        Component.Selected byArgument = select(Map.of(), Optional.of("/opt/java/bin/java"), "mps-control-daemon", "mount-shm");
        assertThat(byArgument.component()).isEqualTo(Component.MPS_CONTROL_DAEMON);
        assertThat(byArgument.args()).containsExactly("mount-shm");

        Component.Selected byVariable = select(Map.of("KGPU_COMPONENT", "mps-control-daemon"), Optional.empty());
        assertThat(byVariable.component()).isEqualTo(Component.MPS_CONTROL_DAEMON);
        assertThat(byVariable.problem()).isEmpty();
    }

    @Test
    void anythingElseIsThePluginAndAnUnknownComponentIsOneLine() {
        Component.Selected plugin = select(Map.of(), Optional.of("/opt/java/bin/java"), "--fail-on-init-error=false");
        assertThat(plugin.component()).isEqualTo(Component.PLUGIN);
        assertThat(plugin.args()).containsExactly("--fail-on-init-error=false");
        assertThat(select(Map.of("KGPU_COMPONENT", "plugin"), Optional.empty()).component()).isEqualTo(Component.PLUGIN);

        assertThat(select(Map.of("KGPU_COMPONENT", "mps"), Optional.empty()).problem()).hasValue(
                "invalid configuration: KGPU_COMPONENT was 'mps' but it must be plugin or mps-control-daemon");
    }
}
