package dev.kgpu.validator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kgpu.agent.testing.PackagedKinds;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The packaged validator (the jar, or under the native profile the executable's build) registers only the kinds it lists,
 * as {@code KubernetesKindsTest} sees in tests: a build that takes every model jar's list instead keeps about 200 kinds
 * in the native executable ({@link PackagedKinds} says how that happens).
 */
class PackagedKubernetesKindsIT {

    @Test
    void thePackagedBuildRegistersOnlyTheKindsTheValidatorLists() throws IOException {
        assertThat(PackagedKinds.recorded()).isEqualTo(PackagedKinds.listed());
    }
}
