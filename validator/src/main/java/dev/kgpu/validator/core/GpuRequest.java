package dev.kgpu.validator.core;

import java.util.Objects;

/**
 * How a sample pod asks for its one GPU: an extended resource of the device plugin, or a DRA ResourceClaim of one
 * device of a DeviceClass.
 */
public sealed interface GpuRequest {

    /** In the pass's summary: {@code 1 nvidia.com/gpu}, {@code a ResourceClaim of DeviceClass gpu.nvidia.com}. */
    String describe();

    /** One of the extended resource {@code resource} ({@code nvidia.com/gpu}, {@code nvidia.com/mig-1g.10gb}). */
    record ExtendedResource(String resource) implements GpuRequest {
        public ExtendedResource {
            Objects.requireNonNull(resource, "resource");
        }

        @Override
        public String describe() {
            return "1 " + resource;
        }
    }

    /**
     * A ResourceClaim made from a ResourceClaimTemplate asking for exactly one device of DeviceClass
     * {@code deviceClass} ({@code gpu.nvidia.com}), which goes with the pod.
     */
    record DeviceClaim(String deviceClass) implements GpuRequest {
        public DeviceClaim {
            Objects.requireNonNull(deviceClass, "deviceClass");
        }

        @Override
        public String describe() {
            return "a ResourceClaim of DeviceClass " + deviceClass;
        }
    }
}
