package dev.kgpu.cdi;

import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.MigDevice;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.nvml.mock.MockNvml;
import dev.kgpu.nvml.mock.SimulatedDriverRoot;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Simulated nodes for the CDI tests: a mock profile's GPUs and its driver root written under a folder. */
final class CdiTestNodes {

    static final MockNvml MOCK = MockNvml.load();

    private CdiTestNodes() {
    }

    /** A node and the generator's view of its GPUs. */
    record Node(Path root, String driverVersion, List<NvidiaCdiGenerator.Gpu> gpus) {
    }

    /** Lays out {@code profile}'s driver root under {@code root} and reads its GPUs through nvml-ffm. */
    static Node simulated(String profile, Path root) {
        MOCK.useProfile(profile);
        try (Nvml nvml = Nvml.open(NvmlOptions.fromEnvironment(System::getenv))) {
            SimulatedDriverRoot.write(root, nvml.driverVersion(), SimulatedDriverRoot.gpusOf(nvml), Optional.of(nvml.libraryPath()));
            return new Node(root, nvml.driverVersion(), gpus(nvml));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            MOCK.reset();
        }
    }

    /** The GPUs as the plugin would hand them to the generator. */
    static List<NvidiaCdiGenerator.Gpu> gpus(Nvml nvml) {
        List<NvidiaCdiGenerator.Gpu> gpus = new ArrayList<>();
        for (GpuDevice gpu : nvml.devices()) {
            List<NvidiaCdiGenerator.Mig> migs = new ArrayList<>();
            for (MigDevice mig : gpu.migDevices()) {
                migs.add(new NvidiaCdiGenerator.Mig(mig.index(), mig.uuid(), mig.gpuInstanceId(), mig.computeInstanceId()));
            }
            boolean migEnabled = gpu.migMode().map(m -> m.currentEnabled()).orElse(false);
            gpus.add(new NvidiaCdiGenerator.Gpu(gpu.index(), gpu.uuid(), gpu.minorNumber(), gpu.pci().sysfsBusId(),
                    migEnabled, migs));
        }
        return gpus;
    }

    /** Options for a node laid out under {@code root} with no container in between (the simulator's case). */
    static NvidiaCdiGenerator.Options options(Path root, NvidiaCdiGenerator.NameStrategy strategy) {
        return NvidiaCdiGenerator.Options.devicePlugin(root, root, strategy).withSystemRoots(root, root);
    }

    static String resource(String name) {
        try (InputStream in = CdiTestNodes.class.getResourceAsStream("/cdi/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no test resource cdi/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
