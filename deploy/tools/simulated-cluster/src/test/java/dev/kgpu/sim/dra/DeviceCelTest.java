package dev.kgpu.sim.dra;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Selectors evaluated in Kubernetes' DRA CEL environment against one A100 of the driver gpu.nvidia.com. */
class DeviceCelTest {

    static final SliceDevice A100 = new SliceDevice("gpu.nvidia.com", "node-1", new DeviceBuilder(
            GpuSlices.gpu(3, "GPU-a100-3", "NVIDIA A100-SXM4-80GB", 80, "550.54.15"))
            .addToAttributes("resource.kubernetes.io/pciBusID", new DeviceAttributeBuilder().withString("0000:07:00.0").build())
            .build());

    record Case(String description, String expression, boolean matches) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("the chart's DeviceClass", GpuSlices.GPU_CLASS_SELECTOR, true),
                new Case("the MIG class", "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'", false),
                new Case("productName", "device.attributes[\"gpu.nvidia.com\"].productName == \"NVIDIA A100-SXM4-80GB\"", true),
                new Case("productName, another GPU", "device.attributes[\"gpu.nvidia.com\"].productName == \"NVIDIA H100 80GB HBM3\"", false),
                new Case("string functions", "device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA A100')", true),
                new Case("an int attribute", "device.attributes['gpu.nvidia.com'].minor == 3", true),
                new Case("memory at least 40Gi", "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0", true),
                new Case("memory more than 80Gi", "device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('80Gi'))", false),
                new Case("quantities equal in any unit", "device.capacity['gpu.nvidia.com'].memory == quantity('81920Mi')", true),
                new Case("quantity arithmetic", "device.capacity['gpu.nvidia.com'].memory.sub(quantity('80Gi')).sign() == 0", true),
                new Case("quantity as integer", "device.capacity['gpu.nvidia.com'].memory.asInteger() == 85899345920", true),
                new Case("driver newer than 550", "device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('550.0.0'))", true),
                new Case("driver older than 550", "device.attributes['gpu.nvidia.com'].driverVersion.isLessThan(semver('550.0.0'))", false),
                new Case("semver parts", "device.attributes['gpu.nvidia.com'].driverVersion.major() == 550", true),
                new Case("a qualified attribute", "device.attributes['resource.kubernetes.io'].pciBusID == '0000:07:00.0'", true),
                new Case("an unknown domain is empty", "device.attributes['example.com'].size() == 0", true),
                new Case("has() on a missing attribute", "has(device.attributes['gpu.nvidia.com'].profile)", false),
                new Case("an optional attribute", "device.attributes['gpu.nvidia.com'].?profile.orValue('none') == 'none'", true),
                new Case("cel.bind", "cel.bind(a, device.attributes['gpu.nvidia.com'], a.type == 'gpu' && a.minor < 4)", true),
                new Case("a macro", "['gpu', 'mig'].exists(t, t == device.attributes['gpu.nvidia.com'].type)", true));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void evaluatesAsKubernetesDoes(Case c) {
        assertThat(DeviceCel.environment().compile(c.expression()).matches(A100)).isEqualTo(c.matches());
    }

    @Test
    void anAttributeTheDeviceLacksIsARuntimeError() {
        var selector = DeviceCel.environment().compile("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'");
        assertThatThrownBy(() -> selector.matches(A100)).isInstanceOf(DeviceCel.SelectorException.class)
                .hasMessageStartingWith("CEL runtime error: ").hasMessageContaining("profile");
    }

    @Test
    void aBadQuantityIsARuntimeError() {
        var selector = DeviceCel.environment().compile("device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('lots'))");
        assertThatThrownBy(() -> selector.matches(A100)).isInstanceOf(DeviceCel.SelectorException.class)
                .hasMessageContaining("'lots' is not a quantity");
    }

    @Test
    void anExpressionThatIsNotBoolOrDoesNotCompileIsRejected() {
        assertThatThrownBy(() -> DeviceCel.environment().compile("device.attributes['gpu.nvidia.com'].minor + 1"))
                .isInstanceOf(DeviceCel.SelectorException.class).hasMessageContaining("must evaluate to bool");
        assertThatThrownBy(() -> DeviceCel.environment().compile("device.driver == "))
                .isInstanceOf(DeviceCel.SelectorException.class).hasMessageStartingWith("compilation failed: ");
        assertThatThrownBy(() -> DeviceCel.environment().compile("quantity(1) == 1"))
                .isInstanceOf(DeviceCel.SelectorException.class).hasMessageStartingWith("compilation failed: ");
    }

    @Test
    void semverOrdersByPrecedence() {
        assertThat(Semver.parse("1.0.0-alpha")).isLessThan(Semver.parse("1.0.0-alpha.1"));
        assertThat(Semver.parse("1.0.0-alpha.1")).isLessThan(Semver.parse("1.0.0-alpha.beta"));
        assertThat(Semver.parse("1.0.0-beta.11")).isGreaterThan(Semver.parse("1.0.0-beta.2"));
        assertThat(Semver.parse("1.0.0-rc.1")).isLessThan(Semver.parse("1.0.0"));
        assertThat(Semver.parse("12.4.0").compareTo(Semver.parse("12.4.0+build"))).isZero();
        assertThat(Semver.isValid("12.4")).isFalse();
        assertThat(Semver.isValid("01.2.3")).isFalse();
    }
}
