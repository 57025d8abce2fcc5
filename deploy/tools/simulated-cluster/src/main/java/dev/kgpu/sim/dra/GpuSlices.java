package dev.kgpu.sim.dra;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ResourceSlices and DeviceClasses of NVIDIA's DRA driver {@code gpu.nvidia.com}, for tests that play the driver's
 * part without running it: devices named and attributed as the driver publishes them ({@code gpu-<minor>}, domain
 * {@code gpu.nvidia.com}: {@code type}, {@code uuid}, {@code productName}, {@code driverVersion}, capacity
 * {@code memory}), and the DeviceClass {@code gpu.nvidia.com} as NVIDIA's chart (and kgpu's) ships it.
 */
public final class GpuSlices {

    public static final String DRIVER = "gpu.nvidia.com";
    /** The chart's DeviceClass {@code gpu.nvidia.com}: whole GPUs of the driver. */
    public static final String GPU_CLASS_SELECTOR = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'";
    /** The chart's DeviceClass {@code mig.nvidia.com}: MIG devices of the driver. */
    public static final String MIG_CLASS = "mig.nvidia.com";
    public static final String MIG_CLASS_SELECTOR = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'";

    private GpuSlices() {
    }

    /** The DeviceClass {@code name} with one CEL selector. */
    public static DeviceClass deviceClass(String name, String selector) {
        return new DeviceClassBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().addNewSelector().withNewCel().withExpression(selector).endCel().endSelector().endSpec().build();
    }

    /** The DeviceClass {@code gpu.nvidia.com}. */
    public static DeviceClass gpuClass() {
        return deviceClass(DRIVER, GPU_CLASS_SELECTOR);
    }

    /** The DeviceClass {@code mig.nvidia.com}. */
    public static DeviceClass migClass() {
        return deviceClass(MIG_CLASS, MIG_CLASS_SELECTOR);
    }

    /** A whole GPU {@code gpu-<minor>}. */
    public static Device gpu(int minor, String uuid, String productName, long memoryGib, String driverVersion) {
        Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
        attributes.put("type", new DeviceAttributeBuilder().withString("gpu").build());
        attributes.put("uuid", new DeviceAttributeBuilder().withString(uuid).build());
        attributes.put("productName", new DeviceAttributeBuilder().withString(productName).build());
        attributes.put("minor", new DeviceAttributeBuilder().withInt((long) minor).build());
        attributes.put("driverVersion", new DeviceAttributeBuilder().withVersion(driverVersion).build());
        return new DeviceBuilder().withName("gpu-" + minor).withAttributes(attributes)
                .withCapacity(Map.of("memory", new DeviceCapacityBuilder().withValue(new Quantity(memoryGib + "Gi")).build()))
                .build();
    }

    /** The one slice of node {@code node}'s pool at {@code generation}. */
    public static ResourceSlice slice(String node, long generation, List<Device> devices) {
        return new ResourceSliceBuilder().withNewMetadata().withName(node + "-" + DRIVER).endMetadata()
                .withNewSpec().withDriver(DRIVER).withNodeName(node)
                .withNewPool().withName(node).withGeneration(generation).withResourceSliceCount(1L).endPool()
                .withDevices(devices).endSpec().build();
    }
}
