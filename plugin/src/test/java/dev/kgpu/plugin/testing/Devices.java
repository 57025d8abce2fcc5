package dev.kgpu.plugin.testing;

import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.GpuDetails;
import dev.kgpu.plugin.devices.MigDetails;
import dev.kgpu.plugin.devices.MigInstance;

import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

/** Builders of domain devices for tests that need no NVML. */
public final class Devices {

    private Devices() {
    }

    public static String gpuUuid(int index) {
        return "GPU-00000000-0000-0000-0000-%012d".formatted(index);
    }

    public static String migUuid(int gpu, int mig) {
        return "MIG-00000000-0000-0000-%04d-%012d".formatted(gpu, mig);
    }

    /** What NVML reports of an A100-SXM4-80GB. */
    public static final GpuDetails A100 = new GpuDetails("Nvidia", "Ampere", "8.0", OptionalLong.of(85899345920L));

    public static Gpu gpu(int index) {
        return new Gpu(index, gpuUuid(index), "NVIDIA A100-SXM4-80GB", index, "00000000:%02X:00.0".formatted(index + 1),
                OptionalInt.of(index / 4), false, List.of(), A100);
    }

    /**
     * A MIG-enabled GPU with one MIG device per profile, GPU instance ids 1.., compute instance 0, each on its own
     * memory slice {@code i} (profile id {@code 19 + i}, 10 GiB, 14 multiprocessors).
     */
    public static Gpu migGpu(int index, String... profiles) {
        List<MigInstance> migs = new java.util.ArrayList<>();
        for (int i = 0; i < profiles.length; i++) {
            migs.add(new MigInstance(migUuid(index, i), index, gpuUuid(index), index, i, i + 1, 0, profiles[i],
                    OptionalInt.of(index / 4), List.of(10 + i, 100 + i),
                    new MigDetails(19 + i, i, 1, 10L << 30, 14, 1, 0, 0, 0, 0)));
        }
        return new Gpu(index, gpuUuid(index), "NVIDIA A100-SXM4-80GB", index, "00000000:%02X:00.0".formatted(index + 1),
                OptionalInt.of(index / 4), true, migs, A100);
    }
}
