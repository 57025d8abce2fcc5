package dev.kgpu.plugin.deviceplugin;

import dev.kgpu.cdi.CdiException;
import dev.kgpu.cdi.CdiSpec;
import dev.kgpu.cdi.CdiSpecWriter;
import dev.kgpu.cdi.NvidiaCdiGenerator;
import dev.kgpu.plugin.devices.AdvertisedDevice;
import dev.kgpu.plugin.devices.CdiGpus;
import dev.kgpu.plugin.devices.Gpu;
import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PhysicalDevice;
import dev.kgpu.plugin.devices.PluginResource;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
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
 * node's thread only, by the device-plugin front-end.
 */
public final class CdiSpecPublisher {

    private static final System.Logger LOG = System.getLogger(CdiSpecPublisher.class.getName());

    /** The file written last, until it is removed. */
    private Optional<Path> written = Optional.empty();

    /** The front-end serves {@code resources} of {@code inventory} from now on, writing the spec as {@code cdi} says. */
    public void serving(CdiSettings cdi, NodeInventory inventory, List<PluginResource> resources) {
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

    /** The front-end serves nothing any more. */
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
        return CdiGpus.of(inventory, served);
    }
}
