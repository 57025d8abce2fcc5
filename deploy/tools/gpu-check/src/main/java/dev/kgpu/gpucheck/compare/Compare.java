package dev.kgpu.gpucheck.compare;

import dev.kgpu.gpucheck.node.Val;

import java.util.List;
import java.util.Locale;

/**
 * Compares one value kgpu reported with its reference(s).
 *
 * <ul>
 *   <li>A reference that is {@link Val.Absent} (the source does not report the field): not compared.</li>
 *   <li>kgpu absent (an agent left the value out): mismatch.</li>
 *   <li>Both "not available": match (both say the GPU has no such value); one of them: mismatch.</li>
 *   <li>Numbers: within the {@link Tolerance}; moving values within the range of every reference reading,
 *       widened by it.</li>
 *   <li>Texts: equal (ignoring case where asked).</li>
 * </ul>
 *
 * @param step     the part of the check
 * @param subject  whose value
 * @param source   where the references come from
 */
public record Compare(String step, String subject, String source) {

    public Finding exact(String field, Val kgpu, Val reference) {
        return compare(field, kgpu, List.of(reference), Tolerance.EXACT, false);
    }

    public Finding ignoringCase(String field, Val kgpu, Val reference) {
        return compare(field, kgpu, List.of(reference), Tolerance.EXACT, true);
    }

    public Finding within(String field, Val kgpu, Val reference, Tolerance tolerance) {
        return compare(field, kgpu, List.of(reference), tolerance, false);
    }

    /** {@code kgpu} against every reading in {@code references} (a moving value: the range they span). */
    public Finding within(String field, Val kgpu, List<Val> references, Tolerance tolerance) {
        return compare(field, kgpu, references, tolerance, false);
    }

    /** A finding decided by the caller. */
    public Finding decided(String field, String kgpu, String reference, String rule, Agreement agreement, String note) {
        return new Finding(step, subject, field, kgpu, reference, source, rule, agreement, note);
    }

    private Finding compare(String field, Val kgpu, List<Val> references, Tolerance tolerance, boolean ignoreCase) {
        String rule = tolerance.describe() + (ignoreCase ? ", ignoring case" : "");
        List<Val> present = references.stream().filter(r -> !(r instanceof Val.Absent)).toList();
        String shown = present.isEmpty() ? references.getFirst().show()
                : String.join(" / ", present.stream().map(Val::show).distinct().toList());
        if (present.isEmpty()) {
            return finding(field, kgpu, shown, rule, Agreement.NOT_COMPARED, source + " does not report it");
        }
        if (kgpu instanceof Val.Absent) {
            return finding(field, kgpu, shown, rule, Agreement.MISMATCH, "kgpu did not report it");
        }
        List<Val.Num> numbers = present.stream().filter(Val.Num.class::isInstance).map(Val.Num.class::cast).toList();
        boolean referenceHasNone = present.stream().allMatch(Val.NotAvailable.class::isInstance);
        if (kgpu instanceof Val.NotAvailable) {
            return referenceHasNone
                    ? finding(field, kgpu, shown, rule, Agreement.MATCH, "neither has a value")
                    : finding(field, kgpu, shown, rule, Agreement.MISMATCH, "kgpu has no value where " + source + " has one");
        }
        if (referenceHasNone) {
            return finding(field, kgpu, shown, rule, Agreement.MISMATCH, source + " has no value where kgpu has one");
        }
        if (kgpu instanceof Val.Num(double value) && !numbers.isEmpty()) {
            double low = numbers.stream().mapToDouble(Val.Num::value).min().orElseThrow();
            double high = numbers.stream().mapToDouble(Val.Num::value).max().orElseThrow();
            boolean inside = value >= low - tolerance.allowance(low) && value <= high + tolerance.allowance(high);
            return finding(field, kgpu, shown, rule, inside ? Agreement.MATCH : Agreement.MISMATCH,
                    inside ? "" : String.format(Locale.ROOT, "off by %s", Val.num(value < low ? low - value : value - high).show()));
        }
        String mine = kgpu.show();
        boolean equal = present.stream().anyMatch(r -> ignoreCase ? r.show().equalsIgnoreCase(mine) : r.show().equals(mine));
        return finding(field, kgpu, shown, rule, equal ? Agreement.MATCH : Agreement.MISMATCH, "");
    }

    private Finding finding(String field, Val kgpu, String reference, String rule, Agreement agreement, String note) {
        return new Finding(step, subject, field, kgpu.show(), reference, source, rule, agreement, note);
    }
}
