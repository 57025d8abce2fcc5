package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.GpuDevice;
import dev.kgpu.nvml.HealthEvent;
import dev.kgpu.nvml.HealthMonitor;
import dev.kgpu.nvml.NvmlException;
import dev.kgpu.nvml.internal.bindings.NvmlNative;
import dev.kgpu.nvml.internal.bindings.nvmlEventData_st;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.text.MessageFormat;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.function.Consumer;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Watches an NVML event set on one platform thread named {@value #THREAD_NAME}. The thread blocks in
 * {@code nvmlEventSetWait_v2} for at most {@link #WAIT} at a time, so {@link #close()} stops it within
 * one wait; a virtual thread would stay pinned to its carrier for the whole foreign call, hence a
 * platform thread.
 *
 * <p>Each device registers for critical XID errors and single/double-bit ECC errors, masked by what
 * {@code nvmlDeviceGetSupportedEventTypes} reports; a device that supports none of them, or whose
 * registration NVML answers with {@code NOT_SUPPORTED}, is listed in {@link #unmonitoredDevices()}.
 * A wait that ends in anything but success or timeout delivers one {@link HealthEvent.MonitorFailure}
 * and stops the thread. The thread frees the event set when it ends.
 *
 * <p>Thread-safety: every method may be called from any thread, the listener included.
 */
final class NvmlHealthMonitor implements HealthMonitor {

    static final String THREAD_NAME = "nvml-health-events";
    /**
     * One wait's bound: the agent's SIGTERM joins this thread before NVML shuts down (a library destructor must not
     * run under a waiter), so half of it on average is added to every exit (issue 20: SIGTERM → exit at most 50 ms).
     * Twenty wake-ups a second, each one NVML call that returns TIMEOUT, cost nothing measurable.
     */
    static final Duration WAIT = Duration.ofMillis(50);

    /** {@code gpuInstanceId}/{@code computeInstanceId} of an event that concerns the whole GPU. */
    private static final int WHOLE_GPU = 0xFFFFFFFF;
    private static final System.Logger LOG = System.getLogger(NvmlHealthMonitor.class.getName());

    private final NvmlSession session;
    private final MemorySegment eventSet;
    private final Map<Long, NvmlGpu> byHandle;
    private final List<GpuDevice> unmonitored;
    private final Consumer<HealthEvent> listener;
    private final Thread thread;
    private volatile boolean stopping;
    private volatile boolean running = true;

    private NvmlHealthMonitor(NvmlSession session, MemorySegment eventSet, Map<Long, NvmlGpu> byHandle,
                              List<GpuDevice> unmonitored, Consumer<HealthEvent> listener) {
        this.session = session;
        this.eventSet = eventSet;
        this.byHandle = byHandle;
        this.unmonitored = unmonitored;
        this.listener = listener;
        this.thread = Thread.ofPlatform().name(THREAD_NAME).daemon(true).unstarted(this::watch);
    }

    static NvmlHealthMonitor start(NvmlSession session, List<GpuDevice> devices, Consumer<HealthEvent> listener) {
        Objects.requireNonNull(devices, "devices");
        Objects.requireNonNull(listener, "listener");
        List<NvmlGpu> gpus = new ArrayList<>(devices.size());
        for (GpuDevice device : devices) {
            gpus.add(session.own(device, "devices"));
        }
        long wanted = NvmlNative.nvmlEventTypeXidCriticalError() | NvmlNative.nvmlEventTypeSingleBitEccError()
                | NvmlNative.nvmlEventTypeDoubleBitEccError();
        ScratchPool scratch = session.scratch();
        MemorySegment s = scratch.acquire();
        MemorySegment eventSet;
        try {
            NvmlReturns.check(NvmlNative.nvmlEventSetCreate(s), "nvmlEventSetCreate");
            eventSet = s.get(ValueLayout.ADDRESS, 0);
        } finally {
            scratch.release(s);
        }
        Map<Long, NvmlGpu> byHandle = new HashMap<>();
        List<GpuDevice> unmonitored = new ArrayList<>();
        NvmlHealthMonitor monitor;
        try {
            for (NvmlGpu gpu : gpus) {
                long types = supportedEventTypes(gpu, scratch) & wanted;
                int rc = types == 0 ? NvmlReturns.NOT_SUPPORTED
                        : NvmlNative.nvmlDeviceRegisterEvents(gpu.handle(), types, eventSet);
                if (NvmlReturns.supported(rc, "nvmlDeviceRegisterEvents")) {
                    byHandle.put(gpu.handle().address(), gpu);
                } else {
                    LOG.log(System.Logger.Level.INFO, "{0} supports no health events; it is not monitored", gpu);
                    unmonitored.add(gpu);
                }
            }
            monitor = new NvmlHealthMonitor(session, eventSet, Map.copyOf(byHandle), List.copyOf(unmonitored), listener);
            session.opened(monitor);
        } catch (RuntimeException e) {
            NvmlNative.nvmlEventSetFree(eventSet);
            throw e;
        }
        monitor.thread.start();
        return monitor;
    }

    private static long supportedEventTypes(NvmlGpu gpu, ScratchPool scratch) {
        MemorySegment s = scratch.acquire();
        try {
            return NvmlReturns.supported(NvmlNative.nvmlDeviceGetSupportedEventTypes(gpu.handle(), s),
                    "nvmlDeviceGetSupportedEventTypes") ? s.get(JAVA_LONG, 0) : 0L;
        } finally {
            scratch.release(s);
        }
    }

    private void watch() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(nvmlEventData_st.layout());
            int timeout = (int) WAIT.toMillis();
            while (!stopping) {
                int rc = NvmlNative.nvmlEventSetWait_v2(eventSet, data, timeout);
                if (rc == NvmlReturns.SUCCESS) {
                    HealthEvent event = toEvent(data);
                    if (event != null) {
                        deliver(event);
                    }
                } else if (rc != NvmlReturns.TIMEOUT) {
                    if (!stopping) {
                        NvmlException cause = NvmlReturns.failure(rc, "nvmlEventSetWait_v2");
                        running = false;
                        LOG.log(System.Logger.Level.WARNING, "waiting for NVML events failed; the health monitor stops", cause);
                        deliver(new HealthEvent.MonitorFailure(cause, session.clock().instant()));
                    }
                    break;
                }
            }
        } finally {
            running = false;
            int rc = NvmlNative.nvmlEventSetFree(eventSet);
            if (rc != NvmlReturns.SUCCESS) {
                LOG.log(System.Logger.Level.DEBUG, "nvmlEventSetFree returned {0}", rc);
            }
            session.closedResource(this);
        }
    }

    private HealthEvent toEvent(MemorySegment data) {
        NvmlGpu gpu = byHandle.get(nvmlEventData_st.device(data).address());
        if (gpu == null) {
            LOG.log(System.Logger.Level.DEBUG, "ignoring an NVML event for a device this monitor does not watch");
            return null;
        }
        long type = nvmlEventData_st.eventType(data);
        Instant now = session.clock().instant();
        if ((type & NvmlNative.nvmlEventTypeXidCriticalError()) != 0) {
            return new HealthEvent.XidError(gpu.uuid(), nvmlEventData_st.eventData(data),
                    instance(nvmlEventData_st.gpuInstanceId(data)), instance(nvmlEventData_st.computeInstanceId(data)), now);
        }
        if ((type & NvmlNative.nvmlEventTypeDoubleBitEccError()) != 0) {
            return new HealthEvent.EccError(gpu.uuid(), true, now);
        }
        if ((type & NvmlNative.nvmlEventTypeSingleBitEccError()) != 0) {
            return new HealthEvent.EccError(gpu.uuid(), false, now);
        }
        return null;
    }

    private static OptionalInt instance(int id) {
        return id == WHOLE_GPU ? OptionalInt.empty() : OptionalInt.of(id);
    }

    private void deliver(HealthEvent event) {
        try {
            listener.accept(event);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, MessageFormat.format("health event listener failed on {0}", event), e);
        }
    }

    @Override
    public List<GpuDevice> unmonitoredDevices() {
        return unmonitored;
    }

    @Override
    public boolean running() {
        return running;
    }

    @Override
    public void close() {
        stopping = true;
        if (Thread.currentThread() == thread || !thread.isAlive()) {
            return;
        }
        try {
            if (!thread.join(WAIT.multipliedBy(4).plusSeconds(1))) {
                LOG.log(System.Logger.Level.WARNING, "{0} did not stop within {1}", THREAD_NAME, WAIT.multipliedBy(4).plusSeconds(1));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "health monitor of " + byHandle.size() + " GPUs" + (running ? "" : " (stopped)");
    }
}
