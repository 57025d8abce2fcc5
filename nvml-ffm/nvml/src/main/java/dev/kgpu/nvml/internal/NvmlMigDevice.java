package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.GpmSampler;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.MemoryInfo;
import dev.kgpu.nvml.MigDevice;
import dev.kgpu.nvml.MigPlacement;
import dev.kgpu.nvml.MigProfile;
import dev.kgpu.nvml.internal.bindings.NvmlNative;
import dev.kgpu.nvml.internal.bindings.nvmlDeviceAttributes_st;
import dev.kgpu.nvml.internal.bindings.nvmlGpuInstanceInfo_st;
import dev.kgpu.nvml.internal.bindings.nvmlGpuInstancePlacement_st;
import dev.kgpu.nvml.internal.bindings.nvmlGpuInstanceProfileInfo_st;
import dev.kgpu.nvml.internal.bindings.nvmlMemory_st;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Optional;
import java.util.OptionalInt;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A MIG device behind a MIG {@code nvmlDevice_t}. Its UUID, instance ids and profile are read once, in
 * the constructor, the way NVIDIA's go-nvlib derives them: slice counts and memory from
 * {@code nvmlDeviceGetAttributes_v2}, the GPU-instance profile (and so the name's attribute suffix) by
 * matching the GPU instance's {@code profileId} against {@code nvmlDeviceGetGpuInstanceProfileInfo}.
 *
 * <p>Thread-safety: immutable apart from NVML's own state; safe for concurrent use.
 */
final class NvmlMigDevice implements MigDevice {

    private static final int PROFILE_INFO_BYTES = (int) nvmlGpuInstanceProfileInfo_st.sizeof();

    private final NvmlGpu parent;
    private final int index;
    private final MemorySegment handle;
    private final String uuid;
    private final int gpuInstanceId;
    private final int computeInstanceId;
    private final MigProfile profile;
    private final MigPlacement placement;

    NvmlMigDevice(NvmlGpu parent, int index, MemorySegment handle, String uuid) {
        this.parent = parent;
        this.index = index;
        this.handle = handle;
        this.uuid = uuid;
        ScratchPool scratch = parent.session().scratch();
        MemorySegment s = scratch.acquire();
        try {
            NvmlReturns.check(NvmlNative.nvmlDeviceGetGpuInstanceId(handle, s), "nvmlDeviceGetGpuInstanceId");
            this.gpuInstanceId = s.get(JAVA_INT, 0);
            NvmlReturns.check(NvmlNative.nvmlDeviceGetComputeInstanceId(handle, s), "nvmlDeviceGetComputeInstanceId");
            this.computeInstanceId = s.get(JAVA_INT, 0);

            MemorySegment attributes = s.asSlice(0, nvmlDeviceAttributes_st.sizeof());
            NvmlReturns.check(NvmlNative.nvmlDeviceGetAttributes_v2(handle, attributes), "nvmlDeviceGetAttributes_v2");
            int gpuSlices = nvmlDeviceAttributes_st.gpuInstanceSliceCount(attributes);
            int computeSlices = nvmlDeviceAttributes_st.computeInstanceSliceCount(attributes);
            long memoryMiB = nvmlDeviceAttributes_st.memorySizeMB(attributes);
            int multiprocessors = nvmlDeviceAttributes_st.multiprocessorCount(attributes);
            int copyEngines = nvmlDeviceAttributes_st.sharedCopyEngineCount(attributes);
            int decoders = nvmlDeviceAttributes_st.sharedDecoderCount(attributes);
            int encoders = nvmlDeviceAttributes_st.sharedEncoderCount(attributes);
            int jpegs = nvmlDeviceAttributes_st.sharedJpegCount(attributes);
            int ofas = nvmlDeviceAttributes_st.sharedOfaCount(attributes);

            MemorySegment info = gpuInstanceInfo(parent.handle(), gpuInstanceId, s);
            MemorySegment slices = nvmlGpuInstanceInfo_st.placement(info);
            this.placement = new MigPlacement(nvmlGpuInstanceInfo_st.profileId(info),
                    nvmlGpuInstancePlacement_st.start(slices), nvmlGpuInstancePlacement_st.size(slices));
            int giProfile = gpuInstanceProfile(parent.handle(), placement.profileId(), s);
            int profileSlices = MigProfiles.gpuInstanceSlices(giProfile);
            if (profileSlices > 0) {
                gpuSlices = profileSlices;
            }

            MemorySegment parentMemory = s.asSlice(0, nvmlMemory_st.sizeof());
            NvmlReturns.check(NvmlNative.nvmlDeviceGetMemoryInfo(parent.handle(), parentMemory), "nvmlDeviceGetMemoryInfo");
            long parentTotal = nvmlMemory_st.total(parentMemory);

            long gb = MigProfiles.memoryGb(parentTotal, memoryMiB);
            String name = MigProfiles.name(computeSlices, gpuSlices, gb, MigProfiles.suffix(giProfile));
            this.profile = new MigProfile(name, giProfile, gpuSlices, computeSlices, memoryMiB, multiprocessors,
                    copyEngines, decoders, encoders, jpegs, ofas);
        } finally {
            scratch.release(s);
        }
    }

    /** GPU instance {@code gpuInstanceId}'s {@code nvmlGpuInstanceInfo_t}, in {@code s} at offset 64. */
    private static MemorySegment gpuInstanceInfo(MemorySegment parent, int gpuInstanceId, MemorySegment s) {
        NvmlReturns.check(NvmlNative.nvmlDeviceGetGpuInstanceById(parent, gpuInstanceId, s), "nvmlDeviceGetGpuInstanceById");
        MemorySegment instance = s.get(ValueLayout.ADDRESS, 0);
        MemorySegment info = s.asSlice(64, nvmlGpuInstanceInfo_st.sizeof());
        NvmlReturns.check(NvmlNative.nvmlGpuInstanceGetInfo(instance, info), "nvmlGpuInstanceGetInfo");
        return info;
    }

    /** The {@code NVML_GPU_INSTANCE_PROFILE_*} whose profile info has {@code profileId} on {@code parent}. */
    private static int gpuInstanceProfile(MemorySegment parent, int profileId, MemorySegment s) {
        MemorySegment profileInfo = s.asSlice(256, PROFILE_INFO_BYTES);
        for (int profile = 0; profile < MigProfiles.GPU_INSTANCE_PROFILE_COUNT; profile++) {
            int rc = NvmlNative.nvmlDeviceGetGpuInstanceProfileInfo(parent, profile, profileInfo);
            if (rc == NvmlReturns.NOT_SUPPORTED || rc == NvmlReturns.INVALID_ARGUMENT) {
                continue; // this GPU has no such profile
            }
            NvmlReturns.check(rc, "nvmlDeviceGetGpuInstanceProfileInfo");
            if (nvmlGpuInstanceProfileInfo_st.id(profileInfo) == profileId) {
                return profile;
            }
        }
        throw NvmlReturns.failure(NvmlReturns.NOT_FOUND, "nvmlDeviceGetGpuInstanceProfileInfo");
    }

    @Override
    public GpuDevice parent() {
        return parent;
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public String uuid() {
        return uuid;
    }

    @Override
    public int gpuInstanceId() {
        return gpuInstanceId;
    }

    @Override
    public int computeInstanceId() {
        return computeInstanceId;
    }

    @Override
    public MigProfile profile() {
        return profile;
    }

    @Override
    public MigPlacement placement() {
        return placement;
    }

    @Override
    public MemoryInfo memory() {
        parent.session().ensureOpen("nvmlDeviceGetMemoryInfo");
        ScratchPool scratch = parent.session().scratch();
        MemorySegment s = scratch.acquire();
        try {
            MemorySegment memory = s.asSlice(0, nvmlMemory_st.sizeof());
            NvmlReturns.check(NvmlNative.nvmlDeviceGetMemoryInfo(handle, memory), "nvmlDeviceGetMemoryInfo");
            return Conversions.memoryV1(memory);
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public Optional<GpmSampler> openGpmSampler() {
        if (!parent.gpmSupported()) {
            return Optional.empty();
        }
        return Optional.of(new NvmlGpmSampler(parent, OptionalInt.of(gpuInstanceId)));
    }

    @Override
    public String toString() {
        return "MIG " + uuid + " (" + profile.name() + " on GPU " + parent.index() + ", GI " + gpuInstanceId
                + ", CI " + computeInstanceId + ")";
    }
}
