package dev.kgpu.sim.dra;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpecFluent;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/** The allocator against a node of four GPUs: two A100s (minor 0, 1) and two H100s (2, 3) on two NUMA nodes. */
class DeviceAllocatorTest {

    static final String A100 = "NVIDIA A100-SXM4-80GB";
    static final String H100 = "NVIDIA H100 80GB HBM3";
    static final Map<String, DeviceClass> CLASSES = Map.of("gpu.nvidia.com", GpuSlices.gpuClass(),
            "mig.nvidia.com", GpuSlices.deviceClass("mig.nvidia.com",
                    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"));

    static List<SliceDevice> node() {
        return List.of(gpu(0, A100, 80, 0), gpu(1, A100, 80, 1), gpu(2, H100, 80, 0), gpu(3, H100, 80, 1));
    }

    static SliceDevice gpu(int minor, String product, long gib, long numa) {
        Device device = new DeviceBuilder(GpuSlices.gpu(minor, "GPU-" + minor, product, gib, "550.54.15"))
                .addToAttributes("numa", new DeviceAttributeBuilder().withInt(numa).build()).build();
        return new SliceDevice("gpu.nvidia.com", "node-1", device);
    }

    static ResourceClaim claim(String name, Consumer<ResourceClaimSpecFluent<?>.DevicesNested<?>> devices) {
        var builder = new ResourceClaimBuilder().withNewMetadata().withNamespace("ml").withName(name).endMetadata()
                .withNewSpec().withNewDevices();
        devices.accept(builder);
        return builder.endDevices().endSpec().build();
    }

    static ResourceClaim oneGpu(String name, String selector) {
        return claim(name, d -> d.addNewRequest().withName("gpu").withNewExactly().withDeviceClassName("gpu.nvidia.com")
                .addNewSelector().withNewCel().withExpression(selector).endCel().endSelector().endExactly().endRequest());
    }

    static DeviceAllocator allocator(Set<SliceDevice.Id> inUse) {
        return allocator(node(), inUse);
    }

    static DeviceAllocator allocator(List<SliceDevice> devices, Set<SliceDevice.Id> inUse) {
        return new DeviceAllocator(devices, inUse, name -> Optional.ofNullable(CLASSES.get(name)));
    }

    static List<String> devices(DeviceAllocator.Outcome outcome, String claim) {
        assertThat(outcome).isInstanceOf(DeviceAllocator.Outcome.Allocated.class);
        return ((DeviceAllocator.Outcome.Allocated) outcome).results().get("ml/" + claim).stream()
                .map(r -> r.getRequest() + "=" + r.getDevice()).toList();
    }

    static SliceDevice.Id id(int minor) {
        return new SliceDevice.Id("gpu.nvidia.com", "node-1", "gpu-" + minor);
    }

    @Test
    void aRequestSelectorPicksTheFirstMatchingFreeDevice() {
        ResourceClaim h100 = oneGpu("h100", "device.attributes['gpu.nvidia.com'].productName == '" + H100 + "'");
        assertThat(devices(allocator(Set.of()).allocate(List.of(h100)), "h100")).containsExactly("gpu=gpu-2");
        assertThat(devices(allocator(Set.of(id(2))).allocate(List.of(h100)), "h100")).containsExactly("gpu=gpu-3");
        assertThat(allocator(Set.of(id(2), id(3))).allocate(List.of(h100))).isInstanceOf(DeviceAllocator.Outcome.Unsatisfiable.class);
    }

    @Test
    void theResultNamesRequestDriverPoolAndDevice() {
        var outcome = (DeviceAllocator.Outcome.Allocated) allocator(Set.of()).allocate(List.of(oneGpu("any", "true")));
        DeviceRequestAllocationResult result = outcome.results().get("ml/any").getFirst();
        assertThat(List.of(result.getRequest(), result.getDriver(), result.getPool(), result.getDevice()))
                .containsExactly("gpu", "gpu.nvidia.com", "node-1", "gpu-0");
        assertThat(result.getAdminAccess()).isNull();
    }

    @Test
    void countAndAllocationModeAll() {
        ResourceClaim two = claim("two", d -> d.addNewRequest().withName("gpus").withNewExactly()
                .withDeviceClassName("gpu.nvidia.com").withCount(2L).endExactly().endRequest());
        assertThat(devices(allocator(Set.of(id(0))).allocate(List.of(two)), "two")).containsExactly("gpus=gpu-1", "gpus=gpu-2");
        ResourceClaim allA100 = claim("all", d -> d.addNewRequest().withName("gpus").withNewExactly()
                .withDeviceClassName("gpu.nvidia.com").withAllocationMode("All")
                .addNewSelector().withNewCel().withExpression("device.attributes['gpu.nvidia.com'].productName == '" + A100 + "'")
                .endCel().endSelector().endExactly().endRequest());
        assertThat(devices(allocator(Set.of(id(2))).allocate(List.of(allA100)), "all")).containsExactly("gpus=gpu-0", "gpus=gpu-1");
        assertThat(allocator(Set.of(id(1))).allocate(List.of(allA100))).as("one of them in use")
                .isInstanceOf(DeviceAllocator.Outcome.Unsatisfiable.class);
        ResourceClaim allMig = claim("mig", d -> d.addNewRequest().withName("migs").withNewExactly()
                .withDeviceClassName("mig.nvidia.com").withAllocationMode("All").endExactly().endRequest());
        assertThat(allocator(Set.of()).allocate(List.of(allMig))).as("no device matches")
                .isInstanceOf(DeviceAllocator.Outcome.Unsatisfiable.class);
    }

    @Test
    void claimsOfOnePodNeverShareADevice() {
        ResourceClaim first = oneGpu("first", "device.attributes['gpu.nvidia.com'].productName == '" + A100 + "'");
        ResourceClaim second = oneGpu("second", "device.attributes['gpu.nvidia.com'].productName == '" + A100 + "'");
        var outcome = allocator(Set.of()).allocate(List.of(first, second));
        assertThat(devices(outcome, "first")).containsExactly("gpu=gpu-0");
        assertThat(devices(outcome, "second")).containsExactly("gpu=gpu-1");
        ResourceClaim third = oneGpu("third", "device.attributes['gpu.nvidia.com'].productName == '" + A100 + "'");
        assertThat(allocator(Set.of()).allocate(List.of(first, second, third))).isInstanceOf(DeviceAllocator.Outcome.Unsatisfiable.class);
    }

    @Test
    void firstAvailableTakesTheFirstSubrequestThatFits() {
        ResourceClaim preferH100 = claim("prefer", d -> d.addNewRequest().withName("gpu")
                .addNewFirstAvailable().withName("h100").withDeviceClassName("gpu.nvidia.com")
                .addNewSelector().withNewCel().withExpression("device.attributes['gpu.nvidia.com'].productName == '" + H100 + "'")
                .endCel().endSelector().endFirstAvailable()
                .addNewFirstAvailable().withName("any").withDeviceClassName("gpu.nvidia.com").endFirstAvailable()
                .endRequest());
        assertThat(devices(allocator(Set.of()).allocate(List.of(preferH100)), "prefer")).containsExactly("gpu/h100=gpu-2");
        assertThat(devices(allocator(Set.of(id(2), id(3))).allocate(List.of(preferH100)), "prefer")).containsExactly("gpu/any=gpu-0");
    }

    @Test
    void matchAndDistinctAttributeBacktrack() {
        // gpu-0 is taken first for "a", but no second device shares its NUMA node once gpu-2 is in use: the
        // allocator must try gpu-1 (NUMA 1) with gpu-3
        ResourceClaim sameNuma = claim("numa", d -> d
                .addNewRequest().withName("a").withNewExactly().withDeviceClassName("gpu.nvidia.com").endExactly().endRequest()
                .addNewRequest().withName("b").withNewExactly().withDeviceClassName("gpu.nvidia.com").endExactly().endRequest()
                .addNewConstraint().withMatchAttribute("gpu.nvidia.com/numa").endConstraint());
        assertThat(devices(allocator(Set.of(id(2))).allocate(List.of(sameNuma)), "numa")).containsExactly("a=gpu-1", "b=gpu-3");
        ResourceClaim distinctProducts = claim("distinct", d -> d
                .addNewRequest().withName("gpus").withNewExactly().withDeviceClassName("gpu.nvidia.com").withCount(2L).endExactly().endRequest()
                .addNewConstraint().withDistinctAttribute("gpu.nvidia.com/productName").endConstraint());
        assertThat(devices(allocator(Set.of()).allocate(List.of(distinctProducts)), "distinct")).containsExactly("gpus=gpu-0", "gpus=gpu-2");
    }

    @Test
    void taintedDevicesNeedATolerationAndAdminAccessIgnoresUse() {
        List<SliceDevice> devices = List.of(new SliceDevice("gpu.nvidia.com", "node-1", new DeviceBuilder(node().getFirst().device())
                .addToTaints(new DeviceTaintBuilder().withKey("gpu.nvidia.com/xid").withValue("79").withEffect("NoSchedule").build()).build()));
        ResourceClaim plain = oneGpu("plain", "true");
        assertThat(allocator(devices, Set.of()).allocate(List.of(plain))).isInstanceOf(DeviceAllocator.Outcome.Unsatisfiable.class);
        ResourceClaim tolerating = claim("tolerating", d -> d.addNewRequest().withName("gpu").withNewExactly()
                .withDeviceClassName("gpu.nvidia.com").addNewToleration().withKey("gpu.nvidia.com/xid").withOperator("Exists")
                .endToleration().endExactly().endRequest());
        assertThat(devices(allocator(devices, Set.of()).allocate(List.of(tolerating)), "tolerating")).containsExactly("gpu=gpu-0");
        ResourceClaim admin = claim("admin", d -> d.addNewRequest().withName("gpu").withNewExactly()
                .withDeviceClassName("gpu.nvidia.com").withAdminAccess(true).endExactly().endRequest());
        var outcome = (DeviceAllocator.Outcome.Allocated) allocator(Set.of(id(0))).allocate(List.of(admin));
        assertThat(outcome.results().get("ml/admin").getFirst().getAdminAccess()).isTrue();
    }

    @Test
    void aMissingClassOrABadSelectorFailsWithTheReason() {
        ResourceClaim noClass = claim("noclass", d -> d.addNewRequest().withName("gpu").withNewExactly()
                .withDeviceClassName("tpu.example.com").endExactly().endRequest());
        assertThat(allocator(Set.of()).allocate(List.of(noClass))).isEqualTo(new DeviceAllocator.Outcome.Failed(
                "claim ml/noclass, request gpu: could not retrieve device class tpu.example.com: deviceclass.resource.k8s.io"
                        + " \"tpu.example.com\" not found"));
        var missing = allocator(Set.of()).allocate(List.of(oneGpu("missing", "device.attributes['gpu.nvidia.com'].profile == 'x'")));
        assertThat(((DeviceAllocator.Outcome.Failed) missing).reason())
                .startsWith("claim ml/missing, request gpu: selector #0: device gpu.nvidia.com/node-1/gpu-0: CEL runtime error: ");
    }
}
