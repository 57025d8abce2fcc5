package dev.kgpu.validator.adapters;

import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.MigDevice;
import dev.kgpu.nvml.MigMode;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlException;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.validator.core.ComponentFailure;
import dev.kgpu.validator.core.DriverSnapshot;
import dev.kgpu.validator.core.GpuDriver;
import dev.kgpu.validator.core.Layer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The driver through nvml-ffm. Each probe opens NVML, reads every GPU's identity and closes NVML again
 * (NVML counts initialisations, so this is cheap and sees the driver as it is now). Every NVML failure
 * becomes a {@link Layer#DRIVER} failure naming the GPU and the NVML function.
 */
public final class NvmlGpuDriver implements GpuDriver {

    private final NvmlOptions options;

    public NvmlGpuDriver(NvmlOptions options) {
        this.options = options;
    }

    @Override
    public DriverSnapshot probe() {
        try (Nvml nvml = Nvml.open(options)) {
            String driverVersion = nvml.driverVersion();
            String cudaVersion = nvml.cudaDriverVersion().toString();
            List<DriverSnapshot.Gpu> gpus = new ArrayList<>();
            int count = nvml.deviceCount();
            for (int i = 0; i < count; i++) {
                int index = i;
                gpus.add(read(index, ask(index, "its handle and identity", () -> nvml.device(index))));
            }
            return new DriverSnapshot(driverVersion, cudaVersion, nvml.libraryPath().toString(), gpus);
        } catch (NvmlException.LibraryNotFound e) {
            throw new ComponentFailure(Layer.DRIVER, e.getMessage(), e);
        } catch (NvmlException.DriverNotLoaded e) {
            throw new ComponentFailure(Layer.DRIVER, "the NVIDIA kernel driver is not loaded or does not match"
                    + " the library: " + e.getMessage(), e);
        } catch (NvmlException e) {
            throw new ComponentFailure(Layer.DRIVER, "NVML failed: " + e.getMessage(), e);
        }
    }

    private static DriverSnapshot.Gpu read(int index, GpuDevice device) {
        String uuid = ask(index, "its UUID", device::uuid);
        String name = ask(index, "its name", device::name);
        long memory = ask(index, "its memory", () -> device.memory().totalBytes());
        int minor = ask(index, "its minor number", device::minorNumber);
        boolean migOn = ask(index, "its MIG mode", () -> device.migMode().map(MigMode::currentEnabled).orElse(false));
        List<String> migUuids = migOn
                ? ask(index, "its MIG devices", () -> device.migDevices().stream().map(MigDevice::uuid).toList())
                : List.of();
        return new DriverSnapshot.Gpu(index, uuid, name, memory, minor, migUuids);
    }

    private static <T> T ask(int index, String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (NvmlException e) {
            throw new ComponentFailure(Layer.DRIVER, "GPU " + index + " did not answer " + what + ": "
                    + e.getMessage(), e);
        }
    }
}
