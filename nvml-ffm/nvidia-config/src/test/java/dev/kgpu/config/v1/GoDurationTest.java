package dev.kgpu.config.v1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class GoDurationTest {

    record Parse(String description, String text, Duration expected) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Parse> valid() {
        return Stream.of(
                new Parse("seconds", "60s", Duration.ofSeconds(60)),
                new Parse("minutes and seconds", "1m30s", Duration.ofSeconds(90)),
                new Parse("milliseconds", "500ms", Duration.ofMillis(500)),
                new Parse("fractional hours", "1.5h", Duration.ofMinutes(90)),
                new Parse("hours and minutes", "2h45m", Duration.ofMinutes(165)),
                new Parse("three units with a fraction", "1h2m3.5s", Duration.ofMillis(3_723_500)),
                new Parse("microseconds as us", "300us", Duration.ofNanos(300_000)),
                new Parse("microseconds with the micro sign", "300\u00b5s", Duration.ofNanos(300_000)),
                new Parse("microseconds with the Greek mu", "300\u03bcs", Duration.ofNanos(300_000)),
                new Parse("nanoseconds", "7ns", Duration.ofNanos(7)),
                new Parse("bare zero needs no unit", "0", Duration.ZERO),
                new Parse("signed zero", "-0", Duration.ZERO),
                new Parse("negative", "-1.5s", Duration.ofMillis(-1500)),
                new Parse("explicit plus", "+5s", Duration.ofSeconds(5)),
                new Parse("fraction without integer", ".5s", Duration.ofMillis(500)),
                new Parse("integer with empty fraction", "1.s", Duration.ofSeconds(1)),
                new Parse("units in any order", "30s1m", Duration.ofSeconds(90)),
                new Parse("the largest duration", "9223372036854775807ns", Duration.ofNanos(Long.MAX_VALUE)),
                new Parse("the smallest duration", "-9223372036854775808ns", Duration.ofNanos(Long.MIN_VALUE)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void parsesAsGoDoes(Parse test) {
        assertThat(GoDuration.parse(test.text())).isEqualTo(test.expected());
    }

    record Invalid(String description, String text, String message) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Invalid> invalid() {
        return Stream.of(
                new Invalid("empty", "", "time: invalid duration \"\""),
                new Invalid("a bare number", "60", "time: missing unit in duration \"60\""),
                new Invalid("an unknown unit", "1x", "time: unknown unit \"x\" in duration \"1x\""),
                new Invalid("days are not a Go unit", "1d", "time: unknown unit \"d\" in duration \"1d\""),
                new Invalid("a unit without a number", "s", "time: invalid duration \"s\""),
                new Invalid("a lone dot", ".s", "time: invalid duration \".s\""),
                new Invalid("a lone sign", "-", "time: invalid duration \"-\""),
                new Invalid("two dots", "1.2.3s", "time: missing unit in duration \"1.2.3s\""),
                new Invalid("spaces", "1 s", "time: unknown unit \" s\" in duration \"1 s\""),
                new Invalid("overflow", "9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""),
                new Invalid("overflow in hours", "2562048h", "time: invalid duration \"2562048h\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void refusesWhatGoRefuses(Invalid test) {
        assertThatThrownBy(() -> GoDuration.parse(test.text()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(test.message());
    }

    record Format(String description, Duration duration, String expected) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Format> formats() {
        return Stream.of(
                new Format("zero", Duration.ZERO, "0s"),
                new Format("nanoseconds", Duration.ofNanos(1), "1ns"),
                new Format("microseconds with a fraction", Duration.ofNanos(1500), "1.5\u00b5s"),
                new Format("milliseconds", Duration.ofMillis(500), "500ms"),
                new Format("milliseconds with a fraction", Duration.ofNanos(1_250_000), "1.25ms"),
                new Format("one second", Duration.ofSeconds(1), "1s"),
                new Format("a fraction of a second", Duration.ofMillis(1500), "1.5s"),
                new Format("a minute keeps its seconds", Duration.ofSeconds(60), "1m0s"),
                new Format("minutes and seconds", Duration.ofSeconds(90), "1m30s"),
                new Format("an hour keeps minutes and seconds", Duration.ofHours(1), "1h0m0s"),
                new Format("a long one", Duration.ofHours(100).plusMillis(3500), "100h0m3.5s"),
                new Format("negative", Duration.ofMillis(-1500), "-1.5s"),
                new Format("the smallest duration", Duration.ofNanos(Long.MIN_VALUE), "-2562047h47m16.854775808s"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("formats")
    void formatsAsGoDoesAndParsesBack(Format test) {
        assertThat(GoDuration.format(test.duration())).isEqualTo(test.expected());
        assertThat(GoDuration.parse(test.expected())).isEqualTo(test.duration());
    }
}
