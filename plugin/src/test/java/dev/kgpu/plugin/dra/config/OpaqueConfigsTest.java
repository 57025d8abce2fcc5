package dev.kgpu.plugin.dra.config;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** NVIDIA's opaque claim parameters: strict decoding, validation texts, precedence and request matching. */
class OpaqueConfigsTest {

    static final String DRIVER = "gpu.nvidia.com";
    static final OpaqueConfigs.Target GPU = new OpaqueConfigs.Target("gpu", "gpu-0", "gpu");
    static final OpaqueConfigs.Target MIG = new OpaqueConfigs.Target("mig/small", "gpu-1-mig-1g10gb-19-2", "mig");

    static ClaimConfig claim(String json, String... requests) {
        return new ClaimConfig(ClaimConfig.FROM_CLAIM, List.of(requests), Optional.of(DRIVER), Optional.of(json));
    }

    static ClaimConfig fromClass(String json) {
        return new ClaimConfig(ClaimConfig.FROM_CLASS, List.of(), Optional.of(DRIVER), Optional.of(json));
    }

    static String gpuConfig(String sharing) {
        return "{\"apiVersion\":\"resource.nvidia.com/v1beta1\",\"kind\":\"GpuConfig\"" + (sharing.isEmpty() ? "" : ",\"sharing\":" + sharing) + "}";
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("an unknown field", claim(gpuConfig("{\"strategy\":\"TimeSlicing\",\"bogus\":1}")),
                        "error getting opaque device configs: error decoding config parameters: unknown field \"sharing.bogus\""),
                Arguments.of("another apiVersion", claim("{\"apiVersion\":\"resource.nvidia.com/v1\",\"kind\":\"GpuConfig\"}"),
                        "error getting opaque device configs: error decoding config parameters: apiVersion 'resource.nvidia.com/v1'"
                                + " is not resource.nvidia.com/v1beta1"),
                Arguments.of("VFIO", claim("{\"apiVersion\":\"resource.nvidia.com/v1beta1\",\"kind\":\"VfioDeviceConfig\"}"),
                        "error getting opaque device configs: error decoding config parameters: kind VfioDeviceConfig is not supported by kgpu"),
                Arguments.of("an unknown strategy", claim(gpuConfig("{\"strategy\":\"Spatial\"}")),
                        "error validating GPU config: unknown GPU sharing strategy: Spatial, supported GPU sharing strategies: TimeSlicing, MPS"),
                Arguments.of("an unknown interval", claim(gpuConfig("{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Eternal\"}}")),
                        "error validating GPU config: unknown time-slice interval: Eternal, supported time-slice intervals: Default, Short, Medium, Long"),
                Arguments.of("MPS settings on time-slicing", claim(gpuConfig("{\"strategy\":\"TimeSlicing\",\"mpsConfig\":{}}")),
                        "error validating GPU config: cannot use MpsConfig with the 'TimeSlicing' strategy"),
                Arguments.of("time-slicing settings on MPS", claim(gpuConfig("{\"strategy\":\"MPS\",\"timeSlicingConfig\":{}}")),
                        "error validating GPU config: cannot use TimeSlicingConfig with the 'MPS' strategy"),
                Arguments.of("too many threads", claim(gpuConfig("{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultActiveThreadPercentage\":101}}")),
                        "error validating GPU config: active thread percentage must not be greater than 100"),
                Arguments.of("another source", new ClaimConfig("FromNowhere", List.of(), Optional.of(DRIVER), Optional.of(gpuConfig(""))),
                        "error getting opaque device configs: invalid config source: FromNowhere"),
                Arguments.of("not opaque", new ClaimConfig(ClaimConfig.FROM_CLAIM, List.of(), Optional.empty(), Optional.empty()),
                        "error getting opaque device configs: only opaque parameters are supported by this driver"),
                Arguments.of("a GpuConfig for a MIG device's request", claim(gpuConfig(""), "mig"),
                        "cannot apply GpuConfig to device \"gpu-1-mig-1g10gb-19-2\" of type \"mig\" (request: mig/small)"),
                Arguments.of("timeSlicingConfig in a MigDeviceConfig", claim("{\"apiVersion\":\"resource.nvidia.com/v1beta1\","
                                + "\"kind\":\"MigDeviceConfig\",\"sharing\":{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{}}}"),
                        "error getting opaque device configs: error decoding config parameters: unknown field \"sharing.timeSlicingConfig\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void aBadConfigIsOneLineInNvidiasWords(String description, ClaimConfig config, String error) {
        assertThatThrownBy(() -> OpaqueConfigs.resolve(DRIVER, List.of(config), List.of(GPU, MIG)))
                .isInstanceOf(OpaqueConfigs.ConfigException.class).hasMessage(error);
    }

    @Test
    void theClaimsConfigBeatsTheClasssARequestsOwnBeatsARequestlessOneAndOtherDriversAreSkipped() throws Exception {
        ClaimConfig classLong = fromClass(gpuConfig("{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Long\"}}"));
        ClaimConfig claimShort = claim(gpuConfig("{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Short\"}}"));
        ClaimConfig forGpu = claim(gpuConfig("{\"strategy\":\"TimeSlicing\"}"), "gpu");
        ClaimConfig other = new ClaimConfig(ClaimConfig.FROM_CLAIM, List.of(), Optional.of("net.example.com"),
                Optional.of("{\"anything\":true}"));
        ClaimConfig migMps = claim("{\"apiVersion\":\"resource.nvidia.com/v1beta1\",\"kind\":\"MigDeviceConfig\","
                + "\"sharing\":{\"strategy\":\"MPS\"}}", "mig");

        assertThat(OpaqueConfigs.resolve(DRIVER, List.of(claimShort, classLong, other), List.of(GPU)).get("gpu-0").interval())
                .as("listed after, the class's still comes first").contains("Short");
        Map<String, DeviceSharing> both = OpaqueConfigs.resolve(DRIVER, List.of(forGpu, claimShort, migMps), List.of(GPU, MIG));
        assertThat(both.get("gpu-0").interval()).as("its request's own, Default when unsaid").contains("Default");
        assertThat(both.get("gpu-1-mig-1g10gb-19-2").strategy()).as("'mig' covers 'mig/small'").contains("MPS");
        assertThat(OpaqueConfigs.resolve(DRIVER, List.of(claimShort), List.of(MIG)).get("gpu-1-mig-1g10gb-19-2"))
                .as("a GpuConfig without requests is for GPUs only").isEqualTo(DeviceSharing.DEFAULT);
    }
}
