package dev.kgpu.nvml;

import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.MockProfile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static dev.kgpu.nvml.mock.MockProfile.number;
import static dev.kgpu.nvml.mock.MockProfile.string;
import static dev.kgpu.nvml.mock.MockProfile.value;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every shipped profile through the real FFM path: what kgpu reads from NVML equals what the profile told
 * the mock to simulate, and values a GPU lacks are empty rather than errors.
 */
class NvmlProfilesTest {

    @AfterEach
    void resetMock() {
        MockNode.MOCK.reset();
    }

    /** Every profile shipped in nvml-ffm/nvml/mock/profiles, so a new one is tested without editing this class. */
    static Stream<String> shippedProfiles() throws IOException {
        try (Stream<Path> files = Files.list(MockNvml.profilesDir())) {
            List<String> names = files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(".json"))
                    .map(name -> name.substring(0, name.length() - ".json".length()))
                    .sorted().toList();
            assertThat(names).contains("rtx3060", "dgx-a100", "dgx-h100", "mig-mixed", "large-256");
            return names.stream();
        }
    }

    @ParameterizedTest
    @MethodSource("shippedProfiles")
    void systemValuesAndDeviceIdentitiesEqualTheProfile(String name) {
        MockProfile profile = MockNode.profile(name);
        try (Nvml nvml = MockNode.open(name)) {
            assertThat(nvml.driverVersion()).isEqualTo(profile.system("driverVersion"));
            assertThat(nvml.nvmlVersion()).isEqualTo(profile.system("nvmlVersion"));
            assertThat(nvml.cudaDriverVersion())
                    .isEqualTo(CudaDriverVersion.fromNvml(((BigDecimal) profile.system("cudaDriverVersion")).intValueExact()));
            assertThat(nvml.deviceCount()).isEqualTo(profile.gpus().size());
            List<GpuDevice> devices = nvml.devices();
            assertThat(devices).hasSize(profile.gpus().size());

            for (int i = 0; i < devices.size(); i++) {
                GpuDevice gpu = devices.get(i);
                Map<String, Object> expected = profile.gpu(i);
                assertThat(gpu.index()).isEqualTo(i);
                assertThat(gpu.uuid()).isEqualTo(string(expected, "uuid"));
                assertThat(gpu.name()).isEqualTo(string(expected, "name"));
                assertThat(gpu.brand().name().replace("_", "")).isEqualTo(string(expected, "brand").replace("_", ""));
                assertThat(gpu.architecture().name()).isEqualTo(string(expected, "architecture"));
                assertThat(gpu.computeCapability()).isEqualTo(new ComputeCapability(
                        number(expected, "computeCapability.major").intValue(),
                        number(expected, "computeCapability.minor").intValue()));
                assertThat(gpu.pci().busId()).isEqualTo(string(expected, "pci.busId"));
                assertThat(gpu.pci().pciDeviceId()).isEqualTo(number(expected, "pci.deviceId").intValue());
                assertThat(gpu.pci().pciSubSystemId()).isEqualTo(number(expected, "pci.subsystemId").intValue());
                assertThat(gpu.pci().sysfsBusId()).isEqualToIgnoringCase(string(expected, "pci.busId").substring(4));
                assertThat(gpu.minorNumber()).isEqualTo(number(expected, "minorNumber").intValue());
                assertThat(gpu.numaNode().isPresent()).isEqualTo(value(expected, "numaNode").isPresent());
                value(expected, "numaNode").ifPresent(node ->
                        assertThat(gpu.numaNode()).hasValue(number(expected, "numaNode").intValue()));
                assertThat(gpu.serial()).isEqualTo(value(expected, "serial").map(Object::toString));
                assertThat(gpu.vbiosVersion()).contains(string(expected, "vbiosVersion"));
                assertThat(gpu.inforomImageVersion()).isEqualTo(value(expected, "inforom.image").map(Object::toString));
                assertThat(gpu.inforomVersion(InforomObject.OEM)).isEqualTo(value(expected, "inforom.oem").map(Object::toString));
                assertThat(gpu.inforomVersion(InforomObject.ECC)).isEqualTo(value(expected, "inforom.ecc").map(Object::toString));
                assertThat(gpu.inforomVersion(InforomObject.POWER)).isEqualTo(value(expected, "inforom.power").map(Object::toString));
                assertThat(gpu.computeMode().map(Enum::name)).isEqualTo(value(expected, "computeMode").map(Object::toString));
                assertThat(gpu.virtualizationMode()).contains(VirtualizationMode.valueOf(string(expected, "virtualizationMode")));
                assertThat(gpu.migMode().isPresent()).as("MIG capable").isEqualTo(value(expected, "mig").isPresent());
                value(expected, "mig.mode").ifPresent(mode ->
                        assertThat(gpu.migMode().orElseThrow().currentEnabled()).isEqualTo(mode.equals("enabled")));
                assertThat(gpu.gpmSupported()).isEqualTo(value(expected, "gpm").isPresent());
                assertThat(nvml.deviceByUuid(gpu.uuid())).containsSame(gpu);
                assertThat(nvml.deviceByPciBusId(gpu.pci().sysfsBusId())).containsSame(gpu);
                assertThat(nvml.device(i)).isSameAs(gpu);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("shippedProfiles")
    void telemetryIsPresentExactlyWhereTheGpuHasIt(String name) {
        MockProfile profile = MockNode.profile(name);
        try (Nvml nvml = MockNode.open(name)) {
            for (GpuDevice gpu : nvml.devices()) {
                Map<String, Object> expected = profile.gpu(gpu.index());
                GpuTelemetry telemetry = gpu.telemetry();

                assertThat(telemetry.gpuTemperatureCelsius()).hasValue(number(expected, "temperature.gpuC").intValue());
                assertThat(telemetry.memoryTemperatureCelsius().isPresent())
                        .isEqualTo(value(expected, "temperature.memoryC").isPresent());
                value(expected, "temperature.memoryC").ifPresent(c -> assertThat(telemetry.memoryTemperatureCelsius())
                        .hasValue(number(expected, "temperature.memoryC").intValue()));
                assertThat(telemetry.powerMilliwatts()).hasValue(number(expected, "power.usageMw").longValue());
                assertThat(telemetry.totalEnergyMillijoules().orElseThrow())
                        .isGreaterThanOrEqualTo(number(expected, "power.energyMj").longValue());
                assertThat(telemetry.smClockMhz()).hasValue(number(expected, "clocksMhz.sm").intValue());
                assertThat(telemetry.memoryClockMhz()).hasValue(number(expected, "clocksMhz.memory").intValue());
                // as on real GPUs, utilisation is per MIG device once MIG is on: the parent has none
                boolean migOn = "enabled".equals(value(expected, "mig.mode").orElse(null));
                if (migOn) {
                    assertThat(telemetry.utilization()).isEmpty();
                    assertThat(telemetry.encoderUtilizationPercent()).isEmpty();
                    assertThat(telemetry.decoderUtilizationPercent()).isEmpty();
                } else {
                    assertThat(telemetry.utilization()).contains(new Utilization(
                            number(expected, "utilization.gpuPercent").intValue(),
                            number(expected, "utilization.memoryPercent").intValue()));
                    assertThat(telemetry.encoderUtilizationPercent().isPresent())
                            .isEqualTo(value(expected, "utilization.encoderPercent").isPresent());
                    assertThat(telemetry.decoderUtilizationPercent().isPresent())
                            .isEqualTo(value(expected, "utilization.decoderPercent").isPresent());
                }
                assertThat(telemetry.pcieReplayCount()).isPresent();
                long total = number(expected, "memory.totalBytes").longValue();
                long reserved = number(expected, "memory.reservedBytes").longValue();
                long used = number(expected, "memory.usedBytes").longValue();
                MemoryInfo expectedMemory = new MemoryInfo(total, total - reserved - used, used,
                        java.util.OptionalLong.of(reserved));
                assertThat(telemetry.memory()).contains(expectedMemory);
                assertThat(gpu.memory()).isEqualTo(expectedMemory);
                assertThat(telemetry.nvLinkDataKiB().isPresent()).isEqualTo(value(expected, "nvlink").isPresent());
                assertThat(telemetry.remappedRows().isPresent()).isEqualTo(value(expected, "remappedRows").isPresent());
                value(expected, "remappedRows").ifPresent(rows -> assertThat(telemetry.remappedRows()).contains(
                        new RemappedRows(number(expected, "remappedRows.correctable").intValue(),
                                number(expected, "remappedRows.uncorrectable").intValue(),
                                (Boolean) value(expected, "remappedRows.pending").orElseThrow(),
                                (Boolean) value(expected, "remappedRows.failure").orElseThrow())));
                assertThat(telemetry.clockEventReasons()).contains(reasons(expected));
                assertThat(telemetry.readAt()).isNotNull();

                assertThat(gpu.eccErrors(MemoryErrorType.CORRECTED, EccCounterType.AGGREGATE).isPresent())
                        .isEqualTo(value(expected, "ecc").isPresent());
                assertThat(gpu.eccMode()).isEqualTo(value(expected, "ecc").map(ecc -> new EccMode(true, true)));
                assertThat(gpu.pcieThroughput()).isEqualTo(value(expected, "pcieThroughputKBps").map(kbps -> new PcieThroughput(
                        number(expected, "pcieThroughputKBps.tx").longValue(), number(expected, "pcieThroughputKBps.rx").longValue())));
                List<NvLinkTraffic> traffic = gpu.nvLinkTraffic();
                assertThat(traffic.isEmpty()).isEqualTo(value(expected, "nvlink").isEmpty());
                if (!traffic.isEmpty()) {
                    // the links' payload counters add up to the GPU's total (read just before, frozen walk)
                    assertThat(traffic.stream().mapToLong(t -> t.dataTxKiB() + t.dataRxKiB()).sum())
                            .isGreaterThanOrEqualTo(telemetry.nvLinkDataKiB().orElseThrow());
                    assertThat(traffic).extracting(NvLinkTraffic::link).doesNotHaveDuplicates().isSorted();
                }
                value(expected, "ecc").ifPresent(ecc -> {
                    assertThat(gpu.eccErrors(MemoryErrorType.CORRECTED, EccCounterType.AGGREGATE))
                            .hasValue(number(expected, "ecc.aggregate.corrected").longValue());
                    assertThat(gpu.eccErrors(MemoryErrorType.UNCORRECTED, EccCounterType.VOLATILE))
                            .hasValue(number(expected, "ecc.volatile.uncorrected").longValue());
                });
                assertThat(gpu.retiredPages(PageRetirementCause.DOUBLE_BIT_ECC_ERROR).isPresent())
                        .isEqualTo(value(expected, "retiredPages").isPresent());
                assertThat(gpu.retiredPagesPending().isPresent()).isEqualTo(value(expected, "retiredPages").isPresent());
                assertThat(gpu.violationNanos(PerfPolicy.POWER).isPresent())
                        .isEqualTo(value(expected, "violationNs.power").isPresent());
                assertThat(gpu.nvLinkErrorTotals().isPresent()).isEqualTo(value(expected, "nvlink").isPresent());
                assertThat(gpu.fabricInfo().isPresent()).isEqualTo(value(expected, "fabric").isPresent()
                        && !"NOT_SUPPORTED".equals(value(expected, "fabric.state").orElse(null)));
                assertThat(gpu.vgpuLicenseState().isPresent()).isEqualTo(value(expected, "gridLicense").isPresent());
            }
        }
    }

    private static Set<ClockEventReason> reasons(Map<String, Object> gpu) {
        Map<String, ClockEventReason> byProfileName = Map.of(
                "GpuIdle", ClockEventReason.GPU_IDLE, "ApplicationsClocksSetting", ClockEventReason.CLOCKS_SETTING,
                "SwPowerCap", ClockEventReason.POWER_CAP, "HwSlowdown", ClockEventReason.HW_SLOWDOWN,
                "SyncBoost", ClockEventReason.SYNC_BOOST, "SwThermalSlowdown", ClockEventReason.SW_THERMAL,
                "HwThermalSlowdown", ClockEventReason.HW_THERMAL, "HwPowerBrakeSlowdown", ClockEventReason.HW_POWER_BRAKE,
                "DisplayClockSetting", ClockEventReason.DISPLAY_CLOCKS);
        Set<ClockEventReason> reasons = EnumSet.noneOf(ClockEventReason.class);
        for (Object reason : (List<?>) value(gpu, "clocksEventReasons").orElse(List.of())) {
            reasons.add(byProfileName.get((String) reason));
        }
        return reasons;
    }
}
