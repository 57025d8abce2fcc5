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
                Arguments.of("no threads", claim(gpuConfig("{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultActiveThreadPercentage\":0}}")),
                        "error validating GPU config: sharing.mpsConfig.defaultActiveThreadPercentage was '0' but it must be from"
                                + " 1 to 100: kgpu starts no MPS daemon whose clients get no threads"),
                Arguments.of("negative threads", claim(gpuConfig("{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultActiveThreadPercentage\":-5}}")),
                        "error validating GPU config: active thread percentage must not be negative"),
                Arguments.of("threads as text", claim(gpuConfig("{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultActiveThreadPercentage\":\"half\"}}")),
                        "error getting opaque device configs: error decoding config parameters:"
                                + " sharing.mpsConfig.defaultActiveThreadPercentage is not an integer: \"half\""),
                Arguments.of("a limit that is no quantity", claim(gpuConfig("{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultPinnedDeviceMemoryLimit\":\"12 GB\"}}")),
                        "error getting opaque device configs: error decoding config parameters:"
                                + " sharing.mpsConfig.defaultPinnedDeviceMemoryLimit was \"12 GB\" but it must be a quantity such as 10Gi or 512Mi"),
                Arguments.of("a per-device limit that is no quantity", claim(gpuConfig("{\"strategy\":\"MPS\",\"mpsConfig\":"
                                + "{\"defaultPerDevicePinnedMemoryLimit\":{\"0\":\"lots\"}}}")),
                        "error getting opaque device configs: error decoding config parameters:"
                                + " sharing.mpsConfig.defaultPerDevicePinnedMemoryLimit[0] was \"lots\" but it must be a quantity such as 10Gi or 512Mi"),
                Arguments.of("per-device limits that are no map", claim(gpuConfig("{\"strategy\":\"MPS\",\"mpsConfig\":"
                                + "{\"defaultPerDevicePinnedMemoryLimit\":[\"1Gi\"]}}")),
                        "error getting opaque device configs: error decoding config parameters:"
                                + " sharing.mpsConfig.defaultPerDevicePinnedMemoryLimit is not an object: [\"1Gi\"]"),
                Arguments.of("a negative limit", claim(gpuConfig("{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultPinnedDeviceMemoryLimit\":\"-1Gi\"}}")),
                        "error validating GPU config: sharing.mpsConfig.defaultPinnedDeviceMemoryLimit was \"-1Gi\" but it must not be negative"),
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

    @Test
    void anMpsConfigIsDecodedWithItsLimitsInBytes() throws Exception {
        ClaimConfig mps = claim(gpuConfig("{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultActiveThreadPercentage\":50,"
                + "\"defaultPinnedDeviceMemoryLimit\":\"10Gi\",\"defaultPerDevicePinnedMemoryLimit\":{\"1\":\"1.5G\",\"GPU-b\":2048}}}"));

        DeviceSharing sharing = OpaqueConfigs.resolve(DRIVER, List.of(mps), List.of(GPU)).get("gpu-0");

        assertThat(sharing.strategy()).contains("MPS");
        assertThat(sharing.mps()).contains(new MpsConfig(java.util.OptionalInt.of(50), Optional.of(10L << 30),
                Map.of("1", 1_500_000_000L, "GPU-b", 2048L)));
        assertThat(OpaqueConfigs.resolve(DRIVER, List.of(claim(gpuConfig("{\"strategy\":\"MPS\"}"))), List.of(GPU))
                .get("gpu-0").mps()).as("no mpsConfig: MPS's defaults").contains(MpsConfig.NONE);
        assertThat(OpaqueConfigs.resolve(DRIVER, List.of(claim(gpuConfig("{\"strategy\":\"TimeSlicing\"}"))), List.of(GPU))
                .get("gpu-0").mps()).isEmpty();
    }

    @Test
    void quantitiesAreReadAsKubernetesWritesThem() {
        assertThat(MpsConfig.bytes("10Gi")).contains(10L << 30);
        assertThat(MpsConfig.bytes("512Mi")).contains(512L << 20);
        assertThat(MpsConfig.bytes("1.5G")).contains(1_500_000_000L);
        assertThat(MpsConfig.bytes("2e9")).contains(2_000_000_000L);
        assertThat(MpsConfig.bytes("1024")).contains(1024L);
        assertThat(MpsConfig.bytes("100m")).as("rounded up, as Quantity.Value()").contains(1L);
        assertThat(MpsConfig.bytes("12 GB")).isEmpty();
        assertThat(MpsConfig.bytes("Gi")).isEmpty();
        assertThat(MpsConfig.bytes("")).isEmpty();
        assertThat(MpsConfig.bytes("99999999999Ei")).as("beyond a long").isEmpty();
    }

    @Test
    void pinnedMemoryLimitsGoToTheClaimsDevicesByUuidOrIndexAndAKeyOutsideTheClaimIsRefused() throws Exception {
        Map<String, Long> perDevice = new java.util.LinkedHashMap<>();
        perDevice.put("1", 1L << 30);
        perDevice.put("GPU-c", 3L << 30);
        MpsConfig config = new MpsConfig(java.util.OptionalInt.empty(), Optional.of(4L << 30), perDevice);

        assertThat(config.pinnedMemoryMiB(List.of("GPU-a", "GPU-b", "GPU-c")))
                .containsExactly(Map.entry("GPU-a", 4096L), Map.entry("GPU-b", 1024L), Map.entry("GPU-c", 3072L));
        assertThat(MpsConfig.NONE.pinnedMemoryMiB(List.of("GPU-a"))).isEmpty();
        assertThatThrownBy(() -> config.pinnedMemoryMiB(List.of("GPU-a", "GPU-b"))).hasMessage(
                "sharing.mpsConfig.defaultPerDevicePinnedMemoryLimit names device 'GPU-c', which is neither a UUID of the"
                        + " claim's devices [GPU-a, GPU-b] nor an index into them");
        assertThatThrownBy(() -> config.pinnedMemoryMiB(List.of("GPU-a"))).hasMessage(
                "sharing.mpsConfig.defaultPerDevicePinnedMemoryLimit names device index 1, but the claim's devices are"
                        + " [GPU-a] (indexes 0 to 0)");
        assertThatThrownBy(() -> new MpsConfig(java.util.OptionalInt.empty(), Optional.of(1000L), Map.of())
                .pinnedMemoryMiB(List.of("GPU-a"))).hasMessage("sharing.mpsConfig.defaultPinnedDeviceMemoryLimit was '1000'"
                + " bytes but it must be at least 1Mi (NVIDIA: invalid limit: default value set too low)");
    }
}
