package dev.kgpu.plugin.dra;

import dev.kgpu.plugin.devices.DriverInfo;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.MigDetails;
import dev.kgpu.plugin.devices.MigInstance;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.testing.Devices;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;

class NodeDevicesTest {

    static NodeInventory node(DriverInfo driver, Gpu... gpus) {
        return new NodeInventory(List.of(gpus), Map.of(), driver);
    }

    @Test
    void aGpuIsNamedByItsMinorAndCarriesNvidiasAttributesOldAndNew() {
        Gpu gpu = new Gpu(1, Devices.gpuUuid(1), "NVIDIA A100-SXM4-80GB", 5, "00000000:B7:00.0", OptionalInt.of(1), false,
                List.of(), Devices.A100);
        NodeDevices devices = NodeDevices.of(node(new DriverInfo("535.104.05", "12.2"), gpu, Devices.gpu(0)));

        assertThat(devices.devices()).extracting(DraDevice::name).as("minor order").containsExactly("gpu-0", "gpu-5");
        DraDevice device = devices.device("gpu-5").orElseThrow();
        Map<String, AttributeValue> expected = new LinkedHashMap<>();
        expected.put("type", new AttributeValue.Text("gpu"));
        expected.put("uuid", new AttributeValue.Text(Devices.gpuUuid(1)));
        expected.put("minor", new AttributeValue.Int(5));
        expected.put("index", new AttributeValue.Int(1));
        expected.put("productName", new AttributeValue.Text("NVIDIA A100-SXM4-80GB"));
        expected.put("brand", new AttributeValue.Text("Nvidia"));
        expected.put("architecture", new AttributeValue.Text("Ampere"));
        expected.put("cudaComputeCapability", new AttributeValue.Version("8.0.0"));
        expected.put("driverVersion", new AttributeValue.Version("535.104.5"));
        expected.put("cudaDriverVersion", new AttributeValue.Version("12.2.0"));
        expected.put("pcieBusID", new AttributeValue.Text("0000:b7:00.0"));
        expected.put("resource.kubernetes.io/pciBusID", new AttributeValue.Text("0000:b7:00.0"));
        assertThat(device.attributes()).containsExactlyEntriesOf(expected);
        assertThat(device.capacity()).containsExactlyEntriesOf(Map.of("memory", 85899345920L));
        assertThat(device.type()).isEqualTo("gpu");
        assertThat(devices.physicalDevices()).containsExactly(Devices.gpu(0), gpu);
    }

    @Test
    void aMigGpuOffersItsMigDevicesNamedByProfileAndPlacementNotItself() {
        Gpu gpu = Devices.migGpu(2, "3g.40gb", "1g.10gb+me", "1c.2g.20gb");
        NodeDevices devices = NodeDevices.of(node(new DriverInfo("550.54.15", "12.4"), gpu));

        assertThat(devices.devices()).extracting(DraDevice::name).as("the 1c.2g.20gb compute instance with its id")
                .containsExactly("gpu-2-mig-1c2g20gb-21-2-0", "gpu-2-mig-1g10gb-me-20-1", "gpu-2-mig-3g40gb-19-0");
        DraDevice mig = devices.device("gpu-2-mig-3g40gb-19-0").orElseThrow();
        assertThat(mig.type()).isEqualTo("mig");
        assertThat(mig.uuid()).isEqualTo(Devices.migUuid(2, 0));
        assertThat(mig.attributes()).containsEntry("uuid", new AttributeValue.Text(Devices.migUuid(2, 0)))
                .containsEntry("parentUUID", new AttributeValue.Text(Devices.gpuUuid(2)))
                .containsEntry("profile", new AttributeValue.Text("3g.40gb"))
                .containsEntry("index", new AttributeValue.Int(0))
                .containsEntry("parentIndex", new AttributeValue.Int(2))
                .containsEntry("productName", new AttributeValue.Text("NVIDIA A100-SXM4-80GB"))
                .containsEntry("driverVersion", new AttributeValue.Version("550.54.15"))
                .containsEntry("resource.kubernetes.io/pciBusID", new AttributeValue.Text("0000:03:00.0"))
                .doesNotContainKey("minor");
        assertThat(mig.capacity()).containsExactlyInAnyOrderEntriesOf(Map.of("multiprocessors", 14L, "copyEngines", 1L,
                "decoders", 0L, "encoders", 0L, "jpegEngines", 0L, "ofaEngines", 0L, "memory", 10737418240L, "memorySlice0", 1L));
        assertThat(mig.attributes().size() + mig.capacity().size()).as("the API's limit").isLessThanOrEqualTo(32);
    }

    @Test
    void twoComputeInstancesOfOneGpuInstanceAreTwoDevicesWithNamesOfTheirOwn() {
        MigDetails gi = new MigDetails(14, 0, 2, 20L << 30, 14, 1, 1, 0, 0, 0);
        List<MigInstance> migs = List.of(
                new MigInstance(Devices.migUuid(3, 0), 3, Devices.gpuUuid(3), 3, 0, 3, 0, "1c.2g.20gb", OptionalInt.of(0),
                        List.of(), gi),
                new MigInstance(Devices.migUuid(3, 1), 3, Devices.gpuUuid(3), 3, 1, 3, 1, "1c.2g.20gb", OptionalInt.of(0),
                        List.of(), gi),
                new MigInstance(Devices.migUuid(3, 2), 3, Devices.gpuUuid(3), 3, 2, 4, 0, "2g.20gb", OptionalInt.of(0),
                        List.of(), new MigDetails(14, 2, 2, 20L << 30, 28, 2, 1, 0, 0, 0)));
        Gpu gpu = new Gpu(3, Devices.gpuUuid(3), "NVIDIA A100-SXM4-80GB", 3, "00000000:04:00.0", OptionalInt.of(0), true,
                migs, Devices.A100);

        NodeDevices devices = NodeDevices.of(node(new DriverInfo("550.54.15", "12.4"), gpu));

        assertThat(devices.devices()).extracting(DraDevice::name).containsExactly("gpu-3-mig-1c2g20gb-14-0-0",
                "gpu-3-mig-1c2g20gb-14-0-1", "gpu-3-mig-2g20gb-14-2");
        assertThat(devices.devices()).extracting(DraDevice::uuid).doesNotHaveDuplicates();
        assertThat(devices.device("gpu-3-mig-1c2g20gb-14-0-1").orElseThrow().capacity())
                .as("the GPU instance's memory, which its sibling shares").containsEntry("memory", 20L << 30)
                .containsEntry("memorySlice0", 1L).containsEntry("memorySlice1", 1L).containsEntry("multiprocessors", 14L);
        assertThat(devices.device("gpu-3-mig-1c2g20gb-14-0-0").orElseThrow().attributes())
                .containsEntry("profile", new AttributeValue.Text("1c.2g.20gb"));
    }

    @Test
    void aDeviceWhoseNameASliceCannotHoldIsLeftOutWithOneWarning() {
        MigInstance longProfile = new MigInstance(Devices.migUuid(1, 0), 1, Devices.gpuUuid(1), 1, 0, 1, 0,
                "7g.80gb+an-extremely-long-profile-name-no-gpu-has-yet", OptionalInt.of(0), List.of(),
                new MigDetails(0, 0, 8, 80L << 30, 98, 7, 5, 0, 1, 1));
        Gpu gpu = new Gpu(1, Devices.gpuUuid(1), "NVIDIA A100-SXM4-80GB", 1, "00000000:02:00.0", OptionalInt.of(0), true,
                List.of(longProfile), Devices.A100);

        try (dev.kgpu.agent.testing.LogLines log = new dev.kgpu.agent.testing.LogLines(NodeDevices.class)) {
            NodeDevices devices = NodeDevices.of(node(DriverInfo.UNKNOWN, Devices.gpu(0), gpu));

            assertThat(devices.devices()).extracting(DraDevice::name).containsExactly("gpu-0");
            assertThat(log.lines()).singleElement().satisfies(line -> assertThat(line).startsWith("WARN")
                    .endsWith("MIG device " + Devices.migUuid(1, 0) + " on gpu-1 is not offered: its name"
                            + " gpu-1-mig-7g80gb-an-extremely-long-profile-name-no-gpu-has-yet-0-0 is longer than 63 characters"));
        }
    }

    @Test
    void versionsAreSemanticAndAnUnreadableOneIsLeftOut() {
        assertThat(VersionAttributes.semver("9.0")).contains("9.0.0");
        assertThat(VersionAttributes.semver("570.86.10")).contains("570.86.10");
        assertThat(VersionAttributes.semver("12")).contains("12.0.0");
        assertThat(VersionAttributes.semver("1.2.3.4")).isEmpty();
        assertThat(VersionAttributes.semver("r550")).isEmpty();

        DraDevice device = NodeDevices.of(node(new DriverInfo("r550-beta", "12.4"), Devices.gpu(0))).devices().getFirst();
        assertThat(device.attributes()).doesNotContainKey("driverVersion").containsKey("cudaDriverVersion");
    }

    @Test
    void unreadableDevicesAreNoneAndSayWhy() {
        NodeDevices devices = NodeDevices.unreadable("NVML could not start: driver not loaded");

        assertThat(devices.devices()).isEmpty();
        assertThat(devices.unreadable()).contains("NVML could not start: driver not loaded");
        assertThat(devices).isNotEqualTo(NodeDevices.of(node(DriverInfo.UNKNOWN)));
    }
}
