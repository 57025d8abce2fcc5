package dev.kgpu.plugin.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class HealthChecksTest {

    /**
     * @param ignored XID → whether it leaves the GPU healthy
     */
    record Case(String description, String disable, String enable, boolean checksEnabled, Map<Long, Boolean> ignored) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("unset: NVIDIA's application XIDs are ignored", null, null, true,
                        Map.of(13L, true, 31L, true, 43L, true, 45L, true, 68L, true, 109L, true, 48L, false, 79L, false)),
                new Case("empty variables mean unset", "", " , ", true, Map.of(13L, true, 48L, false)),
                new Case("all disables XID checks", "all", null, false, Map.of(48L, true, 79L, true)),
                new Case("xids disables XID checks too", "xids", null, false, Map.of(48L, true)),
                new Case("case-insensitive, as NVIDIA lowercases", "ALL", null, false, Map.of(48L, true)),
                new Case("extra XIDs to ignore", "48, 79", null, true, Map.of(48L, true, 79L, true, 63L, false, 13L, true)),
                new Case("enable all checks every XID, the default-ignored ones included", null, "all", true,
                        Map.of(13L, false, 31L, false, 109L, false, 555L, false)),
                new Case("enabled overrides disabled", "11", "11", true, Map.of(11L, false, 13L, true)),
                new Case("enabled overrides a default-ignored XID", null, "13", true, Map.of(13L, false, 31L, true)),
                new Case("all disabled but one enabled checks that one (NVIDIA documents it, its code checks none)",
                        "all", "48", true, Map.of(48L, false, 79L, true, 13L, true)),
                new Case("all disabled and all enabled checks everything", "all", "all", true, Map.of(13L, false, 79L, false)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void readsNvidiasHealthVariables(Case test) {
        HealthChecks checks = HealthChecks.parse(test.disable(), test.enable());
        assertThat(checks.xidChecksEnabled()).isEqualTo(test.checksEnabled());
        test.ignored().forEach((xid, ignored) -> assertThat(checks.ignores(xid)).as("XID %d ignored", xid).isEqualTo(ignored));
    }

    record Bad(String description, String disable, String enable, List<String> messages) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Bad> bad() {
        return Stream.of(
                new Bad("a word", "48,reset", null, List.of("DP_DISABLE_HEALTHCHECKS was '48,reset' but it must be 'all',"
                        + " 'xids' or a comma-separated list of XID numbers, but lists 'reset'")),
                new Bad("a negative XID", null, "-1", List.of("DP_ENABLE_HEALTHCHECKS was '-1' but it must be 'all', 'xids'"
                        + " or a comma-separated list of XID numbers, but lists '-1'")),
                new Bad("both variables bad, both reported", "x", "y", List.of(
                        "DP_DISABLE_HEALTHCHECKS was 'x' but it must be 'all', 'xids' or a comma-separated list of XID"
                                + " numbers, but lists 'x'",
                        "DP_ENABLE_HEALTHCHECKS was 'y' but it must be 'all', 'xids' or a comma-separated list of XID"
                                + " numbers, but lists 'y'")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bad")
    void refusesMalformedXidsInsteadOfDroppingThem(Bad test) {
        assertThatThrownBy(() -> HealthChecks.parse(test.disable(), test.enable()))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.failures())
                        .extracting(ValidationFailure::message).containsExactlyElementsOf(test.messages()));
    }

    @org.junit.jupiter.api.Test
    void aListOfXidNumbersOnlyRefusesTheKeywords() {
        assertThat(HealthChecks.XID_LIST.fromText(" 48, 79,")).containsExactlyInAnyOrder(48L, 79L);
        assertThat(HealthChecks.XID_LIST.fromText("")).isEmpty();
        assertThat(HealthChecks.XID_LIST.format(java.util.Set.of(79L, 48L))).isEqualTo("48,79");
        assertThatThrownBy(() -> HealthChecks.XID_LIST.fromText("48,all"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("must be a comma-separated list of XID numbers, but lists 'all'");
    }
}
