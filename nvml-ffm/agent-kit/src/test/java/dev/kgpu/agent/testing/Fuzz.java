package dev.kgpu.agent.testing;

import org.quicktheories.QuickTheory;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.List;

import static org.quicktheories.QuickTheory.qt;

/**
 * The parsers' property-based tests (fuzzing) with QuickTheories: a fixed seed by default, so CI runs the
 * same inputs every time and a failure is reproducible; {@code -Dkgpu.fuzz.seed=<n>} picks other inputs and
 * {@code -Dkgpu.fuzz.examples=<n>} runs more of them (a failure prints the seed and the shrunk input).
 *
 * <pre>{@code
 * Fuzz.theory(2_000).forAll(Fuzz.tokens(YAML_TOKENS, 0, 40)).checkAssert(text -> ...);
 * ./mvnw -pl nvml-ffm/agent-kit -am verify -Dtest='*FuzzTest' -Dsurefire.failIfNoSpecifiedTests=false -Dkgpu.fuzz.seed=7 -Dkgpu.fuzz.examples=100000
 * }</pre>
 */
public final class Fuzz {

    /** The seed CI runs with. */
    public static final long DEFAULT_SEED = 20_261_201L;

    private Fuzz() {
    }

    /** A theory of {@code examples} inputs (or {@code -Dkgpu.fuzz.examples}), seeded as above. */
    public static QuickTheory theory(int examples) {
        return qt().withFixedSeed(Long.getLong("kgpu.fuzz.seed", DEFAULT_SEED))
                .withExamples(Integer.getInteger("kgpu.fuzz.examples", examples))
                .withShrinkCycles(200);
    }

    /** Strings made of {@code min} to {@code max} of {@code tokens}, each picked at random. */
    public static Gen<String> tokens(List<String> tokens, int min, int max) {
        Gen<String> one = Generate.pick(tokens);
        return Generate.range(min, max).flatMap(n -> random -> {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < n; i++) {
                text.append(one.generate(random));
            }
            return text.toString();
        });
    }

    /** Any text of up to {@code max} characters from the whole of Unicode's basic plane, surrogates and controls too. */
    public static Gen<String> anyText(int max) {
        Gen<Character> any = Generate.characters(1, 0xFFFF);
        return Generate.range(0, max).flatMap(n -> random -> {
            StringBuilder text = new StringBuilder(n);
            for (int i = 0; i < n; i++) {
                text.append(any.generate(random));
            }
            return text.toString();
        });
    }

    /**
     * {@code base} with up to {@code edits} random edits: a character deleted, duplicated or replaced by one
     * of {@code inserts} — the valid document cut, spliced and corrupted the way files are.
     */
    public static Gen<String> mutated(List<String> bases, List<String> inserts, int edits) {
        Gen<String> base = Generate.pick(bases);
        Gen<String> insert = Generate.pick(inserts);
        Gen<Integer> count = Generate.range(0, edits);
        Gen<Integer> kind = Generate.range(0, 3);
        return random -> {
            StringBuilder text = new StringBuilder(base.generate(random));
            int n = count.generate(random);
            for (int i = 0; i < n && !text.isEmpty(); i++) {
                int at = Generate.range(0, text.length() - 1).generate(random);
                switch (kind.generate(random)) {
                    case 0 -> text.deleteCharAt(at);
                    case 1 -> text.insert(at, text.charAt(at));
                    case 2 -> text.replace(at, at + 1, insert.generate(random));
                    default -> text.setLength(at); // cut short
                }
            }
            return text.toString();
        };
    }
}
