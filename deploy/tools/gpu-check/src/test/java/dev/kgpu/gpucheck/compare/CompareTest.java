package dev.kgpu.gpucheck.compare;

import dev.kgpu.gpucheck.node.Val;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CompareTest {

    private final Compare compare = new Compare("nvml", "GPU 0", "nvidia-smi");

    @Test
    void exactValuesMatchOnlyWhenEqual() {
        assertThat(compare.exact("uuid", Val.text("GPU-1"), Val.text("GPU-1")).agreement()).isEqualTo(Agreement.MATCH);
        Finding wrong = compare.exact("uuid", Val.text("GPU-1"), Val.text("GPU-2"));
        assertThat(wrong.agreement()).isEqualTo(Agreement.MISMATCH);
        assertThat(wrong.line()).isEqualTo("nvml GPU 0: uuid was 'GPU-1' but nvidia-smi says 'GPU-2' (exact)");
    }

    @Test
    void movingValuesMayLieAnywhereBetweenTheReadingsPlusTheTolerance() {
        List<Val> readings = List.of(Val.num(40), Val.num(44));
        assertThat(compare.within("temp", Val.num(42), readings, Tolerance.moving(3)).agreement()).isEqualTo(Agreement.MATCH);
        assertThat(compare.within("temp", Val.num(47), readings, Tolerance.moving(3)).agreement()).isEqualTo(Agreement.MATCH);
        Finding off = compare.within("temp", Val.num(48), readings, Tolerance.moving(3));
        assertThat(off.agreement()).isEqualTo(Agreement.MISMATCH);
        assertThat(off.note()).isEqualTo("off by 4");
        assertThat(compare.within("power", Val.num(560), List.of(Val.num(500)), Tolerance.moving(15, 0.10)).agreement())
                .as("10 % of 500 W is more than 15 W").isEqualTo(Agreement.MISMATCH);
        assertThat(compare.within("power", Val.num(549), List.of(Val.num(500)), Tolerance.moving(15, 0.10)).agreement())
                .isEqualTo(Agreement.MATCH);
    }

    @Test
    void notAvailableOnBothSidesAgreesAndOnOneSideDoesNot() {
        assertThat(compare.exact("mig", Val.notAvailable("NOT_SUPPORTED"), Val.notAvailable("N/A")).agreement()).isEqualTo(Agreement.MATCH);
        assertThat(compare.exact("mig", Val.text("Disabled"), Val.notAvailable("N/A")).agreement()).isEqualTo(Agreement.MISMATCH);
        assertThat(compare.exact("mig", Val.notAvailable("NOT_SUPPORTED"), Val.text("Disabled")).agreement()).isEqualTo(Agreement.MISMATCH);
    }

    @Test
    void aFieldTheReferenceDoesNotReportIsNotComparedButOneKgpuLeftOutIsAMismatch() {
        assertThat(compare.exact("compute_cap", Val.text("9.0"), Val.absent()).agreement()).isEqualTo(Agreement.NOT_COMPARED);
        assertThat(compare.exact("label", Val.absent(), Val.text("9")).agreement()).isEqualTo(Agreement.MISMATCH);
    }
}
