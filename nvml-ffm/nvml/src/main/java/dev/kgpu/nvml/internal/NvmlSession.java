package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.CudaDriverVersion;
import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.HealthEvent;
import dev.kgpu.nvml.HealthMonitor;
import dev.kgpu.nvml.Nvml;
import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.nvml.internal.bindings.NvmlNative;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.text.MessageFormat;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The implementation behind {@link Nvml}: one {@code nvmlInit_v2} ... {@code nvmlShutdown} pair.
 *
 * <p>Thread-safety: safe for concurrent use. The device list is built once, on first use, under the
 * session's lock; every other call is lock-free and takes its native buffers from {@link ScratchPool}.
 * {@link #close()} first closes the health monitors and GPM samplers this session opened (so no native
 * resource outlives NVML), then shuts NVML down; from then on every call fails with
 * {@link dev.kgpu.nvml.NvmlException.Uninitialized}, even while another session keeps NVML initialised.
 * A health monitor whose thread does not end within its close (stuck in a listener, or closed from its own thread)
 * still calls NVML ({@code nvmlEventSetWait_v2}, {@code nvmlEventSetFree}): {@code nvmlShutdown} then waits for that
 * thread's end and runs on it, so that no call of this session's own threads races or follows it.
 */
public final class NvmlSession implements Nvml {

    private static final System.Logger LOG = System.getLogger(NvmlSession.class.getName());
    private static final int VERSION_BUFFER = 96;

    private final Path libraryPath;
    private final InstantSource clock;
    private final ScratchPool scratch = ScratchPool.shared();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Set<AutoCloseable> resources = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean shutDown = new AtomicBoolean();
    private volatile List<GpuDevice> devices;

    private NvmlSession(Path libraryPath, InstantSource clock) {
        this.libraryPath = libraryPath;
        this.clock = clock;
    }

    /** Loads the library the options name and initialises NVML. */
    public static Nvml open(NvmlOptions options) {
        return open(options, InstantSource.system());
    }

    /** As {@link #open(NvmlOptions)}, with the clock that stamps telemetry and events. */
    static NvmlSession open(NvmlOptions options, InstantSource clock) {
        Objects.requireNonNull(options, "options");
        NvmlLibrary.Loaded loaded = NvmlLibrary.load(options);
        NvmlReturns.check(NvmlNative.nvmlInit_v2(), "nvmlInit_v2");
        LOG.log(System.Logger.Level.DEBUG, "NVML initialised from {0}", loaded.path());
        return new NvmlSession(loaded.path(), clock);
    }

    @Override
    public Path libraryPath() {
        return libraryPath;
    }

    @Override
    public String driverVersion() {
        return readString("nvmlSystemGetDriverVersion", NvmlNative::nvmlSystemGetDriverVersion);
    }

    @Override
    public String nvmlVersion() {
        return readString("nvmlSystemGetNVMLVersion", NvmlNative::nvmlSystemGetNVMLVersion);
    }

    /** An NVML call that fills a string buffer of the given length. */
    private interface StringCall {
        int call(MemorySegment buffer, int length);
    }

    private String readString(String function, StringCall call) {
        ensureOpen(function);
        MemorySegment s = scratch.acquire();
        try {
            NvmlReturns.check(call.call(s, VERSION_BUFFER), function);
            return Conversions.string(s, VERSION_BUFFER);
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public CudaDriverVersion cudaDriverVersion() {
        ensureOpen("nvmlSystemGetCudaDriverVersion_v2");
        MemorySegment s = scratch.acquire();
        try {
            NvmlReturns.check(NvmlNative.nvmlSystemGetCudaDriverVersion_v2(s), "nvmlSystemGetCudaDriverVersion_v2");
            return CudaDriverVersion.fromNvml(s.get(ValueLayout.JAVA_INT, 0));
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public int deviceCount() {
        ensureOpen("nvmlDeviceGetCount_v2");
        MemorySegment s = scratch.acquire();
        try {
            NvmlReturns.check(NvmlNative.nvmlDeviceGetCount_v2(s), "nvmlDeviceGetCount_v2");
            return s.get(ValueLayout.JAVA_INT, 0);
        } finally {
            scratch.release(s);
        }
    }

    @Override
    public List<GpuDevice> devices() {
        ensureOpen("nvmlDeviceGetHandleByIndex_v2");
        List<GpuDevice> known = devices;
        if (known == null) {
            synchronized (this) {
                known = devices;
                if (known == null) {
                    known = readDevices();
                    devices = known;
                }
            }
        }
        return known;
    }

    private List<GpuDevice> readDevices() {
        int count = deviceCount();
        List<GpuDevice> list = new ArrayList<>(count);
        for (int index = 0; index < count; index++) {
            MemorySegment s = scratch.acquire();
            MemorySegment handle;
            try {
                NvmlReturns.check(NvmlNative.nvmlDeviceGetHandleByIndex_v2(index, s), "nvmlDeviceGetHandleByIndex_v2");
                handle = s.get(ValueLayout.ADDRESS, 0);
            } finally {
                scratch.release(s);
            }
            list.add(new NvmlGpu(this, index, handle));
        }
        return List.copyOf(list);
    }

    @Override
    public GpuDevice device(int index) {
        List<GpuDevice> all = devices();
        if (index < 0 || index >= all.size()) {
            throw NvmlReturns.failure(NvmlReturns.INVALID_ARGUMENT, "nvmlDeviceGetHandleByIndex_v2");
        }
        return all.get(index);
    }

    @Override
    public Optional<GpuDevice> deviceByUuid(String uuid) {
        Objects.requireNonNull(uuid, "uuid");
        for (GpuDevice device : devices()) {
            if (device.uuid().equalsIgnoreCase(uuid.strip())) {
                return Optional.of(device);
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<GpuDevice> deviceByPciBusId(String pciBusId) {
        int[] wanted = parseBusId(pciBusId);
        for (GpuDevice device : devices()) {
            if (device.pci().domain() == wanted[0] && device.pci().bus() == wanted[1]
                    && device.pci().device() == wanted[2]) {
                return Optional.of(device);
            }
        }
        return Optional.empty();
    }

    /** Domain, bus and device of {@code 00000000:3B:00.0} or {@code 0000:3b:00.0}. */
    static int[] parseBusId(String pciBusId) {
        Objects.requireNonNull(pciBusId, "pciBusId");
        String[] parts = pciBusId.strip().toLowerCase(Locale.ROOT).split(":");
        try {
            if (parts.length == 3) {
                String[] deviceFunction = parts[2].split("\\.");
                if (deviceFunction.length <= 2 && !parts[0].isEmpty() && parts[0].length() <= 8
                        && !parts[1].isEmpty() && parts[1].length() <= 2) {
                    return new int[] {Integer.parseUnsignedInt(parts[0], 16), Integer.parseInt(parts[1], 16),
                            Integer.parseInt(deviceFunction[0], 16)};
                }
            }
        } catch (NumberFormatException e) {
            // fall through to the one error below
        }
        throw new IllegalArgumentException("PCI bus id was '" + pciBusId
                + "' but it must look like 00000000:3B:00.0 or 0000:3b:00.0");
    }

    @Override
    public HealthMonitor startHealthMonitor(List<GpuDevice> devices, Consumer<HealthEvent> listener) {
        ensureOpen("nvmlEventSetCreate");
        return NvmlHealthMonitor.start(this, devices, listener);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (AutoCloseable resource : List.copyOf(resources)) {
            try {
                resource.close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, MessageFormat.format("closing {0} before nvmlShutdown failed", resource), e);
            }
        }
        List<AutoCloseable> stillInNvml = List.copyOf(resources);
        if (!stillInNvml.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "{0} still calls NVML; nvmlShutdown waits for its end", stillInNvml);
        }
        shutDownWhenIdle(true);
    }

    /** Shuts NVML down once the session is closed and no resource of it is left; only once. */
    private void shutDownWhenIdle(boolean throwing) {
        if (!closed.get() || !resources.isEmpty() || !shutDown.compareAndSet(false, true)) {
            return;
        }
        int rc = NvmlNative.nvmlShutdown();
        if (throwing) {
            NvmlReturns.check(rc, "nvmlShutdown");
        } else if (rc != NvmlReturns.SUCCESS) {
            LOG.log(System.Logger.Level.WARNING, "nvmlShutdown returned {0}", rc);
        }
    }

    @Override
    public String toString() {
        return "Nvml[" + libraryPath + (closed.get() ? ", closed]" : "]");
    }

    // ---- for the device, monitor and sampler classes of this package ----

    /** Throws {@link dev.kgpu.nvml.NvmlException.Uninitialized} once this session is closed. */
    void ensureOpen(String function) {
        if (closed.get()) {
            throw NvmlReturns.failure(NvmlReturns.UNINITIALIZED, function);
        }
    }

    ScratchPool scratch() {
        return scratch;
    }

    InstantSource clock() {
        return clock;
    }

    /** Tracks a native resource that {@link #close()} must release before {@code nvmlShutdown}. */
    void opened(AutoCloseable resource) {
        resources.add(resource);
        if (closed.get()) {
            closedResource(resource);
            throw NvmlReturns.failure(NvmlReturns.UNINITIALIZED, "nvmlShutdown");
        }
    }

    /** {@code resource} makes no more NVML calls; the last one of a closed session shuts NVML down. */
    void closedResource(AutoCloseable resource) {
        if (resources.remove(resource) && closed.get()) {
            shutDownWhenIdle(false);
        }
    }

    /** The device of this session behind {@code device}, or an error naming what was passed instead. */
    NvmlGpu own(GpuDevice device, String parameter) {
        if (device instanceof NvmlGpu gpu && gpu.session() == this) {
            return gpu;
        }
        throw new IllegalArgumentException(parameter + " was '" + device
                + "' but it must be a GpuDevice handed out by this Nvml instance");
    }
}
