package dev.kgpu.nvml.internal;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** MIG names as NVIDIA's go-nvlib and the k8s-device-plugin spell them, from real GPUs' NVML values. */
class MigProfilesTest {

    private static final long MIB = 1024L * 1024L;

    record Case(String description, long deviceMiB, long migMiB, int computeSlices, int giProfile, String expected) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("A100 40GB 1g", 40960, 4864, 1, 0, "1g.5gb"),
                new Case("A100 40GB 1g with media extensions", 40960, 4864, 1, 7, "1g.5gb+me"),
                new Case("A100 40GB 2g", 40960, 9856, 2, 1, "2g.10gb"),
                new Case("A100 40GB 3g", 40960, 19968, 3, 2, "3g.20gb"),
                new Case("A100 40GB 7g", 40960, 40192, 7, 4, "7g.40gb"),
                new Case("A100 80GB 1g", 81920, 9856, 1, 0, "1g.10gb"),
                new Case("A100 80GB 1g rev2", 81920, 19968, 1, 9, "1g.20gb"),
                new Case("A100 80GB 4g", 81920, 40192, 4, 3, "4g.40gb"),
                new Case("A100 80GB 1 compute slice of a 2g instance", 81920, 19968, 1, 1, "1c.2g.20gb"),
                new Case("A100 80GB 2 compute slices of a 3g instance", 81920, 40192, 2, 2, "2c.3g.40gb"),
                new Case("H100 80GB 1g", 81559, 9856, 1, 0, "1g.10gb"),
                new Case("H100 80GB 2g with media extensions", 81559, 19968, 2, 8, "2g.20gb+me"),
                new Case("H100 80GB 7g", 81559, 80384, 7, 4, "7g.80gb"),
                new Case("80 GB GPU, 1g profile without media extensions", 81559, 9856, 1, 13, "1g.10gb-me"),
                new Case("80 GB GPU, 1g profile with all media extensions", 81559, 9856, 1, 15, "1g.10gb+me.all"),
                new Case("80 GB GPU, 2g graphics profile", 81559, 19968, 2, 11, "2g.20gb+gfx"),
                new Case("80 GB GPU, 4g graphics profile", 81559, 40192, 4, 12, "4g.40gb+gfx"),
                new Case("A30 24GB 1g", 24576, 5888, 1, 0, "1g.6gb"),
                new Case("A30 24GB 2 compute slices of a 4g instance", 24576, 23808, 2, 3, "2c.4g.24gb"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void namesProfilesLikeNvidia(Case c) {
        int gpuSlices = MigProfiles.gpuInstanceSlices(c.giProfile());
        long gb = MigProfiles.memoryGb(c.deviceMiB() * MIB, c.migMiB());
        assertThat(MigProfiles.name(c.computeSlices(), gpuSlices, gb, MigProfiles.suffix(c.giProfile())))
                .isEqualTo(c.expected());
    }
}
