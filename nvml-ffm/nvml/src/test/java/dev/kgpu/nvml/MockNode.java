package dev.kgpu.nvml;

import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;

/** Test support: a simulated node of the mock library with its telemetry frozen at the profile's values. */
final class MockNode {

    static final MockNvml MOCK = MockNvml.load();

    private MockNode() {
    }

    /** Loads {@code profile} into the mock, freezes telemetry and opens NVML on it. */
    static Nvml open(String profile) {
        MOCK.useProfile(profile);
        MOCK.freezeTelemetry();
        return Nvml.open();
    }

    static MockProfile profile(String name) {
        return MockNvml.profile(name);
    }
}
