package dev.kgpu.gpucheck.smi;

import dev.kgpu.gpucheck.node.Fields;
import dev.kgpu.gpucheck.node.NodeValues;
import dev.kgpu.gpucheck.node.Val;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SmiXmlTest {

    private static String resource(String name) throws IOException {
        try (InputStream in = SmiXmlTest.class.getResourceAsStream("/smi/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void readsADriver580DocumentWithItsUnitsAndDoctype() throws IOException {
        NodeValues node = SmiXml.parse(resource("h200-580.xml"), "test", Map.of("00000000:19:00.0", "9.0"));

        assertThat(node.system(Fields.DRIVER_VERSION)).isEqualTo(Val.text("580.159.04"));
        assertThat(node.system(Fields.CUDA_VERSION)).isEqualTo(Val.text("13.0"));
        assertThat(node.gpus()).hasSize(1);
        NodeValues.GpuValues gpu = node.gpus().getFirst();
        assertThat(gpu.uuid()).isEqualTo("GPU-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
        assertThat(gpu.busId()).isEqualTo("00000000:19:00.0");
        assertThat(gpu.get(Fields.PRODUCT_NAME)).isEqualTo(Val.text("NVIDIA H200"));
        assertThat(gpu.get(Fields.FB_TOTAL)).isEqualTo(Val.num(143771));
        assertThat(gpu.get(Fields.FB_RESERVED)).isEqualTo(Val.num(707));
        assertThat(gpu.get(Fields.GPU_TEMP)).isEqualTo(Val.num(29));
        assertThat(gpu.get(Fields.MEMORY_TEMP)).isEqualTo(Val.num(33));
        assertThat(gpu.get(Fields.SM_CLOCK)).isEqualTo(Val.num(345));
        assertThat(gpu.get(Fields.MEM_CLOCK)).as("clocks/mem_clock, not max_clocks'").isEqualTo(Val.num(3201));
        assertThat(gpu.get(Fields.MIG_CURRENT)).isEqualTo(Val.text("Disabled"));
        assertThat(gpu.get(Fields.ECC_CURRENT)).isEqualTo(Val.text("Enabled"));
        assertThat(gpu.get(Fields.REMAPPED_FAILURE)).isEqualTo(Val.text("No"));
        assertThat(gpu.get(Fields.COMPUTE_CAP)).isEqualTo(Val.text("9.0"));
        // driver 580 writes no power_draw: the average power draw is taken
        assertThat(gpu.get(Fields.POWER_DRAW)).isEqualTo(Val.num(76.34));
        assertThat(gpu.get(SmiXml.POWER_SOURCE)).isEqualTo(Val.text("gpu_power_readings.average_power_draw"));
    }

    @Test
    void notAvailableFormsAndMissingElementsAreToldApart() {
        String xml = """
                <?xml version="1.0" ?>
                <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
                <nvidia_smi_log><driver_version>535.104.05</driver_version><gpu id="00000000:01:00.0">
                <uuid>GPU-1</uuid><mig_mode><current_mig>N/A</current_mig></mig_mode>
                <temperature><gpu_temp>40 C</gpu_temp><memory_temp>N/A</memory_temp></temperature>
                <gpu_power_readings><power_draw>[Not Supported]</power_draw><instant_power_draw>80.12 W</instant_power_draw></gpu_power_readings>
                <remapped_rows>N/A</remapped_rows>
                </gpu></nvidia_smi_log>
                """;
        NodeValues.GpuValues gpu = SmiXml.parse(xml, "test", Map.of()).gpus().getFirst();

        assertThat(gpu.get(Fields.MEMORY_TEMP)).isInstanceOf(Val.NotAvailable.class);
        assertThat(gpu.get(Fields.MIG_CURRENT)).isInstanceOf(Val.NotAvailable.class);
        assertThat(gpu.get(Fields.POWER_DRAW)).isEqualTo(Val.num(80.12));
        assertThat(gpu.get(Fields.REMAPPED_CORRECTABLE)).as("under <remapped_rows>N/A</remapped_rows>").isInstanceOf(Val.NotAvailable.class);
        assertThat(gpu.get(Fields.COMPUTE_CAP)).as("no --query-gpu answer").isInstanceOf(Val.Absent.class);
        assertThat(gpu.get(Fields.FB_TOTAL)).isInstanceOf(Val.Absent.class);
    }

    @Test
    void externalEntitiesAreNeverLoaded(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path secret = Files.writeString(dir.resolve("secret"), "do-not-read");
        String xml = "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log [<!ENTITY x SYSTEM \"" + secret.toUri() + "\">]>\n"
                + "<nvidia_smi_log><gpu id=\"00000000:01:00.0\"><uuid>GPU-1</uuid><product_name>A&x;B</product_name></gpu></nvidia_smi_log>";

        NodeValues.GpuValues gpu = SmiXml.parse(xml, "test", Map.of()).gpus().getFirst();

        assertThat(gpu.get(Fields.PRODUCT_NAME).show()).doesNotContain("do-not-read");
    }

    @Test
    void aDocumentThatIsNotNvidiaSmisIsOneClearError() {
        assertThatThrownBy(() -> SmiXml.parse("<other/>", "test", Map.of()))
                .hasMessage("nvidia-smi's XML root element was 'other' but it must be nvidia_smi_log");
        assertThatThrownBy(() -> SmiXml.parse("<nvidia_smi_log>", "test", Map.of()))
                .hasMessageStartingWith("nvidia-smi's XML does not parse: ");
    }

    @Test
    void computeCapabilitiesAreKeyedByTheNormalisedBusId() {
        assertThat(SmiXml.parseComputeCaps("00000000:19:00.0, 9.0\n0000:3b:00.0, 8.0\n"))
                .containsEntry("00000000:19:00.0", "9.0").containsEntry("00000000:3B:00.0", "8.0");
        assertThatThrownBy(() -> SmiXml.parseComputeCaps("Field \"compute_cap\" is not a valid field to query.\n"))
                .hasMessageContaining("must be '<pci.bus_id>, <compute_cap>'");
    }
}
