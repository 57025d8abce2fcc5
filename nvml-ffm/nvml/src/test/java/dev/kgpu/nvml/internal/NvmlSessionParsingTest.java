package dev.kgpu.nvml.internal;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class NvmlSessionParsingTest {

    @ParameterizedTest
    @CsvSource({
            "00000000:3B:00.0, 0, 59, 0",
            "0000:3b:00.0, 0, 59, 0",
            "00000001:C1:1F.0, 1, 193, 31",
            "' 0000:07:00.0 ', 0, 7, 0",
            "0000:07:00, 0, 7, 0"})
    void readsBothPciBusIdForms(String busId, int domain, int bus, int device) {
        assertThat(NvmlSession.parseBusId(busId)).containsExactly(domain, bus, device);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "3b:00.0", "0000:3b", "zz00:3b:00.0", "0000:3bb:00.0", "0000:3b:00.0.1"})
    void rejectsWhatIsNoBusId(String busId) {
        assertThatIllegalArgumentException().isThrownBy(() -> NvmlSession.parseBusId(busId))
                .withMessage("PCI bus id was '" + busId + "' but it must look like 00000000:3B:00.0 or 0000:3b:00.0");
    }
}
