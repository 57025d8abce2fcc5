package dev.kgpu.config.v1;

import dev.kgpu.agent.testing.Fuzz;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Go durations fuzzed against a reference: a duration built of whole-number parts ({@code 1h30m}, {@code -2s500ms})
 * reads as the sum of its parts when that fits in 64 bits of nanoseconds (Go allows -2^63) and is refused
 * otherwise; every duration prints as Go prints it and reads back the same; any text parses or is refused with
 * {@link IllegalArgumentException}, in bounded time whatever its length.
 */
class GoDurationFuzzTest {

    static final Map<String, Long> UNITS = Map.of("ns", 1L, "us", 1_000L, "\u00b5s", 1_000L, "\u03bcs", 1_000L,
            "ms", 1_000_000L, "s", 1_000_000_000L, "m", 60_000_000_000L, "h", 3_600_000_000_000L);
    static final BigInteger MAX_MAGNITUDE = BigInteger.ONE.shiftLeft(63);

    record Part(long amount, String unit) {
    }

    @Test
    void wholeNumberPartsReadAsTheirSumOrAreRefused() {
        Gen<Long> amount = Generate.longRange(0, 1_000_000).mix(Generate.longRange(0, Long.MAX_VALUE), 10);
        Gen<Part> part = amount.zip(Generate.pick(List.copyOf(UNITS.keySet())), Part::new);
        Gen<List<Part>> parts = Generate.range(1, 5).flatMap(n -> random -> {
            java.util.ArrayList<Part> list = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                list.add(part.generate(random));
            }
            return list;
        });
        Fuzz.theory(2_000).forAll(parts, Generate.pick(List.of("", "-", "+"))).checkAssert((list, sign) -> {
            StringBuilder text = new StringBuilder(sign);
            BigInteger total = BigInteger.ZERO;
            boolean overflow = false;
            for (Part p : list) {
                text.append(p.amount()).append(p.unit());
                total = total.add(BigInteger.valueOf(p.amount()).multiply(BigInteger.valueOf(UNITS.get(p.unit()))));
                overflow |= total.compareTo(MAX_MAGNITUDE) > 0;
            }
            boolean negative = sign.equals("-");
            boolean fits = !overflow && (negative ? total.compareTo(MAX_MAGNITUDE) <= 0 : total.compareTo(MAX_MAGNITUDE) < 0);
            if (fits) {
                assertThat(GoDuration.parse(text.toString()).toNanos())
                        .isEqualTo(negative ? total.negate().longValueExact() : total.longValueExact());
            } else {
                assertThatThrownBy(() -> GoDuration.parse(text.toString())).isInstanceOf(IllegalArgumentException.class);
            }
        });
    }

    @Test
    void everyDurationPrintsAsGoAndReadsBack() {
        Gen<Long> nanos = Generate.longRange(Long.MIN_VALUE, Long.MAX_VALUE)
                .mix(Generate.longRange(-10_000_000_000L, 10_000_000_000L), 50);
        Fuzz.theory(2_000).forAll(nanos).checkAssert(n -> {
            Duration duration = Duration.ofNanos(n);
            String text = GoDuration.format(duration);
            assertThat(text).matches("-?(0s|([0-9]+h)?([0-9]+m)?[0-9]+(\\.[0-9]+)?(s|ms|\u00b5s|ns))");
            assertThat(GoDuration.parse(text)).isEqualTo(duration);
        });
    }

    @Test
    void anyTextParsesOrIsRefusedWithIllegalArgumentException() {
        Gen<String> text = Fuzz.tokens(List.of("0", "1", "9", "00000000000000000000", "99999999999999999999", ".", "-",
                "+", "h", "m", "s", "ms", "us", "\u00b5s", "\u03bcs", "ns", "d", " ", "e", "x"), 0, 12).mix(Fuzz.anyText(40), 20);
        Fuzz.theory(2_000).forAll(text).checkAssert(t -> {
            try {
                GoDuration.parse(t);
            } catch (IllegalArgumentException e) {
                assertThat(e.getMessage()).startsWith("time: ");
            }
        });
    }

    @Test
    void hugeNumbersAreRefusedOrReadInBoundedTime() {
        // a 4 MiB config file may hold a number of any length: read the way Go reads it, digit by digit
        assertThatThrownBy(() -> GoDuration.parse("1" + "0".repeat(2_000_000) + "s")).isInstanceOf(IllegalArgumentException.class);
        assertThat(GoDuration.parse("0".repeat(2_000_000) + "1s")).isEqualTo(Duration.ofSeconds(1));
        assertThat(GoDuration.parse("1." + "9".repeat(2_000_000) + "s")).isEqualTo(Duration.ofNanos(1_999_999_999));
    }
}
