package dev.kgpu.plugin.cdi;

import dev.kgpu.cdi.CdiException;
import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.cdi.CdiSpecWriter;
import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.MigInstance;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.lifecycle.LifecycleListener;
import dev.kgpu.plugin.settings.PluginSettings;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Keeps the plugin's CDI spec ({@code k8s.device-plugin.nvidia.com-gpu.json}) in step with what it serves, so the
 * CDI names Allocate hands out ({@code k8s.device-plugin.nvidia.com/gpu=<id>}) resolve in the container runtime:
 * written atomically each time the plugin starts serving (at start, after a kubelet restart or SIGHUP, when the
 * devices could be read again), with one device per physical device it advertises (a shared replica resolves
 * to its GPU), named as {@code deviceIDStrategy} names them; removed when the plugin stops serving, and when a
 * reload turns the CDI strategies off.
 *
 * <p>A spec that cannot be generated or written is logged at ERROR and the plugin keeps serving: containers
 * given its names then fail to start with the runtime's {@code unresolvable CDI devices}. Called on the
 * supervisor thread only.
 */
public final class CdiSpecPublisher implements LifecycleListener {

    private static final System.Logger LOG = System.getLogger(CdiSpecPublisher.class.getName());

    /** The file written last, until it is removed. */
    private Optional<Path> written = Optional.empty();

    @Override
    public void serving(PluginSettings settings, NodeInventory inventory, List<PluginResource> resources) {
        CdiSettings cdi = settings.cdi();
        if (!cdi.enabled()) {
            remove("no CDI strategy is on");
            return;
        }
        CdiSpecWriter writer = new CdiSpecWriter(cdi.specDirectory());
        List<NvidiaCdiGenerator.Gpu> gpus = devices(inventory, resources);
        try {
            if (gpus.isEmpty()) {
                remove("no devices are served");
                return;
            }
            String version = NvidiaCdiGenerator.inferDriverVersion(cdi.generator().driverRoot())
                    .orElseThrow(() -> new CdiException("the driver root was '" + cdi.generator().driverRoot()
                            + "' but it holds no libcuda.so.<version> or libnvidia-ml.so.<version> (the driver root as"
                            + " the plugin sees it: --driver-root-ctr-path / CONTAINER_DRIVER_ROOT)"));
            CdiSpec spec = NvidiaCdiGenerator.generate(cdi.generator(), version, gpus);
            Path file = writer.write(spec);
            if (written.isPresent() && !written.get().equals(file)) {
                remove("its directory changed");
            }
            written = Optional.of(file);
            LOG.log(System.Logger.Level.INFO, "wrote the CDI spec {0}: {1} devices of {2}, driver {3}", file,
                    spec.devices().size(), spec.kind(), version);
        } catch (CdiException e) {
            LOG.log(System.Logger.Level.ERROR, "could not write the CDI spec for {0}: {1}; containers given its CDI names"
                    + " will fail to start", cdi.generator().kind(), e.getMessage());
        }
    }

    @Override
    public void stopped() {
        remove("the plugin stopped serving");
    }

    private void remove(String why) {
        if (written.isEmpty()) {
            return;
        }
        Path file = written.get();
        try {
            if (java.nio.file.Files.deleteIfExists(file)) {
                LOG.log(System.Logger.Level.INFO, "removed the CDI spec {0}: {1}", file, why);
            }
            written = Optional.empty();
        } catch (java.io.IOException e) {
            LOG.log(System.Logger.Level.ERROR, "could not remove the CDI spec {0}: {1}", file, e.getMessage());
        }
    }

    /**
     * The generator's view of what is served: each GPU served whole, and each MIG device under its GPU, in NVML
     * index order; replicas count once.
     */
    static List<NvidiaCdiGenerator.Gpu> devices(NodeInventory inventory, List<PluginResource> resources) {
        Set<PhysicalDevice> served = new LinkedHashSet<>();
        resources.forEach(r -> r.devices().stream().map(AdvertisedDevice::device).forEach(served::add));
        return generatorGpus(inventory, served);
    }

    /**
     * {@code devices} as the CDI generator takes them: each GPU among them whole, and each MIG device among them under
     * its GPU, in NVML index order (MIG devices in their index order). Shared with the DRA driver's per-claim specs.
     */
    public static List<NvidiaCdiGenerator.Gpu> generatorGpus(NodeInventory inventory, Collection<? extends PhysicalDevice> devices) {
        Map<String, List<MigInstance>> migs = new LinkedHashMap<>();
        Set<String> whole = new LinkedHashSet<>();
        for (PhysicalDevice device : devices) {
            switch (device) {
                case Gpu gpu -> whole.add(gpu.uuid());
                case MigInstance mig -> migs.computeIfAbsent(mig.parentUuid(), k -> new ArrayList<>()).add(mig);
            }
        }
        List<NvidiaCdiGenerator.Gpu> gpus = new ArrayList<>();
        for (Gpu gpu : inventory.gpus().stream().sorted(Comparator.comparingInt(Gpu::index)).toList()) {
            if (whole.contains(gpu.uuid())) {
                gpus.add(new NvidiaCdiGenerator.Gpu(gpu.index(), gpu.uuid(), gpu.minor(), gpu.pciAddress(), false, List.of()));
            }
            List<MigInstance> its = migs.getOrDefault(gpu.uuid(), List.of());
            if (!its.isEmpty()) {
                gpus.add(new NvidiaCdiGenerator.Gpu(gpu.index(), gpu.uuid(), gpu.minor(), gpu.pciAddress(), true,
                        its.stream().sorted(Comparator.comparingInt(MigInstance::migIndex))
                                .map(m -> new NvidiaCdiGenerator.Mig(m.migIndex(), m.uuid(), m.gpuInstanceId(),
                                        m.computeInstanceId()))
                                .toList()));
            }
        }
        return gpus;
    }
}
