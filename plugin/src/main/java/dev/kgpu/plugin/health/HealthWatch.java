package dev.kgpu.plugin.health;

import dev.kgpu.plugin.devices.DeviceEvents;
import dev.kgpu.plugin.devices.DeviceSource;
import dev.kgpu.plugin.devices.DeviceSourceException;
import dev.kgpu.plugin.devices.PhysicalDevice;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Watches the served devices' health through their device source and reports to the {@link HealthTracker}:
 * <ul>
 *   <li>the source's health events (NVML's XIDs, on NVML's event thread) go straight to the tracker; their
 *       log lines are rate-limited per GPU with counts ({@link XidLog});</li>
 *   <li>when the event watch fails (driver gone), the tracker marks every device Unhealthy and the watch is
 *       closed; a health check that finds NVML answering again starts a new one;</li>
 *   <li>every {@code interval}, on the thread {@value #THREAD_NAME}, a health check probes the devices, so
 *       those marked Unhealthy can recover and those that stop answering turn Unhealthy.</li>
 * </ul>
 *
 * <p>Thread-safety: all methods may be called from any thread. The device source is only used under this
 * watch's lock, so a probe never runs on a source that {@link #stop()} has handed back for closing.
 */
public final class HealthWatch implements AutoCloseable {

    static final String THREAD_NAME = "plugin-health";
    private static final System.Logger LOG = System.getLogger(HealthWatch.class.getName());

    private final HealthTracker tracker;
    private final boolean watchEvents;
    private final ScheduledExecutorService timer;
    private final XidLog xidLog = new XidLog(InstantSource.system(), XidLog.WINDOW,
            line -> LOG.log(System.Logger.Level.INFO, line));

    private final Object lock = new Object();
    // guarded by lock
    private DeviceSource source;
    private List<PhysicalDevice> devices = List.of();
    private DeviceSource.Watch events;
    private long eventsGeneration;
    /** The generation of the last event watch that failed; set on the source's thread. */
    private volatile long failedGeneration;

    /**
     * @param watchEvents whether to watch health events at all (not when every XID is ignored)
     * @param interval    how often the devices are probed
     */
    public HealthWatch(HealthTracker tracker, boolean watchEvents, Duration interval) {
        this.tracker = Objects.requireNonNull(tracker, "tracker");
        this.watchEvents = watchEvents;
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name(THREAD_NAME).daemon(true).factory());
        timer.scheduleWithFixedDelay(this::periodicCheck, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Watches {@code devices} through {@code source} from now on. An event watch already running on the same
     * source and devices keeps running, so a restart that changes neither leaves no gap in which an XID
     * could be missed.
     */
    public void watch(DeviceSource source, List<PhysicalDevice> devices) {
        synchronized (lock) {
            if (source == this.source && devices.equals(this.devices) && (eventsRunning() || !watchEvents)) {
                return;
            }
            closeEvents("the devices changed");
            this.source = Objects.requireNonNull(source, "source");
            this.devices = List.copyOf(devices);
            startEvents();
        }
    }

    /** Stops watching. The source is no longer used once this returns, so it may be closed. */
    public void stop() {
        synchronized (lock) {
            closeEvents("the device source closes");
            source = null;
            devices = List.of();
        }
    }

    /**
     * One health check now, on the calling thread (the timer runs one every interval): probes the devices
     * through the source (see {@link HealthTracker#check}) and restarts the event watch when NVML answers
     * again after it was lost.
     */
    public HealthTracker.CheckResult checkNow() {
        synchronized (lock) {
            if (source == null) {
                return HealthTracker.CheckResult.NOTHING;
            }
            HealthTracker.CheckResult result = tracker.check(source.probe());
            if (result.nvmlRestored() && !eventsRunning() && watchEvents) {
                LOG.log(System.Logger.Level.INFO, "NVML answers again; watching health events again");
                closeEvents("it failed");
                startEvents();
            }
            return result;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        stop();
    }

    /** Starts the event watch; called with the lock held. */
    private void startEvents() {
        if (!watchEvents || devices.isEmpty()) {
            return;
        }
        long generation = ++eventsGeneration;
        try {
            events = source.watch(devices, new Events(generation));
        } catch (DeviceSourceException e) {
            tracker.onNvmlLost(e.getMessage());
        }
    }

    /** Whether an event watch runs and has not failed; called with the lock held. */
    private boolean eventsRunning() {
        return events != null && failedGeneration != eventsGeneration;
    }

    /** Closes the event watch; called with the lock held. */
    private void closeEvents(String why) {
        if (events != null) {
            LOG.log(System.Logger.Level.INFO, "health events stopped: {0}", why);
            events.close();
            events = null;
        }
    }

    private void periodicCheck() {
        xidLog.flush();
        try {
            checkNow();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "health check failed: {0}", e.getMessage());
        }
    }

    /** The raw events of one event watch, on the source's thread. */
    private final class Events implements DeviceEvents {
        private final long generation;

        Events(long generation) {
            this.generation = generation;
        }

        @Override
        public void xid(String gpuUuid, long xid, OptionalInt gpuInstanceId, OptionalInt computeInstanceId) {
            xidLog.xid(gpuUuid, xid, gpuInstanceId.isPresent()
                    ? " (GI " + gpuInstanceId.getAsInt() + ", CI " + computeInstanceId.orElse(-1) + ")" : "");
            tracker.onXid(gpuUuid, xid, gpuInstanceId, computeInstanceId);
        }

        @Override
        public void watchFailed(String reason) {
            // before the tracker hears it: a check that finds NVML back must see this watch as failed
            failedGeneration = generation;
            tracker.onNvmlLost(reason);
            // closed on the timer's thread: the source's thread cannot wait for its own end
            try {
                timer.execute(() -> {
                    synchronized (lock) {
                        if (eventsGeneration == generation) {
                            closeEvents("NVML lost: " + reason);
                        }
                    }
                });
            } catch (RejectedExecutionException closing) {
                // the watch is closing anyway
            }
        }
    }
}
