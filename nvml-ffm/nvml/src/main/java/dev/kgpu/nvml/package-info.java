/**
 * NVIDIA's NVML for kgpu's node agents, through the Java Foreign Function and Memory API.
 *
 * <h2>Requirements</h2>
 * <ul>
 *   <li>Java 25, started with {@code --enable-native-access=ALL-UNNAMED} (the agents' launch scripts and the
 *       build's surefire configuration pass it).</li>
 *   <li>{@code libnvidia-ml.so.1} of an NVIDIA driver, or kgpu's mock library
 *       ({@code nvml-ffm/nvml/target/mock/libnvidia-ml.so.1}) on machines without a GPU. Calls that older drivers
 *       lack (GPM, fabric info, clock event reasons, the v2 memory query, vGPU licences) read as
 *       unsupported.</li>
 *   <li>For native images: GraalVM/Mandrel 25; this module's {@code META-INF/native-image} registers its
 *       downcalls and initialises its FFM classes at run time.</li>
 * </ul>
 *
 * <h2>How the library is found</h2>
 * {@link dev.kgpu.nvml.Nvml#open()} reads {@link dev.kgpu.nvml.NvmlOptions} from the environment and loads,
 * in this order:
 * <ol>
 *   <li>the file named by {@code KGPU_NVML_LIBRARY}, when set (and nothing else if it fails to load);</li>
 *   <li>{@code libnvidia-ml.so.1} in the usual library folders ({@link dev.kgpu.nvml.NvmlOptions#LIBRARY_FOLDERS})
 *       under {@code NVIDIA_DRIVER_ROOT} (default {@code /}; {@code /run/nvidia/driver} for the GPU
 *       operator's containerised driver);</li>
 *   <li>the system loader's search for {@code libnvidia-ml.so.1} ({@code LD_LIBRARY_PATH}, {@code ld.so.cache}).</li>
 * </ol>
 * When none loads, {@link dev.kgpu.nvml.NvmlException.LibraryNotFound} names every path tried.
 *
 * <h2>Use</h2>
 * {@snippet :
 * try (Nvml nvml = Nvml.open()) {
 *     for (GpuDevice gpu : nvml.devices()) {
 *         GpuTelemetry now = gpu.telemetry();          // one read of every frequently sampled value
 *         now.powerMilliwatts().ifPresent(mw -> System.out.println(gpu.uuid() + " " + mw + " mW"));
 *     }
 *     try (HealthMonitor monitor = nvml.startHealthMonitor(nvml.devices(), event -> System.out.println(event))) {
 *         // XID and ECC events arrive on the thread nvml-health-events until close()
 *     }
 * }
 * }
 *
 * <h2>Thread-safety</h2>
 * {@link dev.kgpu.nvml.Nvml}, {@link dev.kgpu.nvml.GpuDevice}, {@link dev.kgpu.nvml.MigDevice} and
 * {@link dev.kgpu.nvml.HealthMonitor} may be used from any number of threads; reads take their native
 * buffers from a preallocated pool, so they allocate no native memory. A {@link dev.kgpu.nvml.GpmSampler}
 * belongs to one collector thread. The records and enums are immutable.
 *
 * <p>Everything under {@code dev.kgpu.nvml.internal} (the jextract bindings included) is this module's own;
 * no other module may import it, and a test fails the build if one does.
 */
package dev.kgpu.nvml;
