package dev.kgpu.plugin.dra;

import dev.kgpu.plugin.devices.DriverInfo;
import dev.kgpu.plugin.devices.Gpu;
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

        assertThat(devices.devices()).extracting(DraDevice::name).as("the 1c.2g.20gb compute instance is not offered")
                .containsExactly("gpu-2-mig-1g10gb-me-20-1", "gpu-2-mig-3g40gb-19-0");
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
