package dev.kgpu.plugin.dra;

import dev.kgpu.agent.Backoff;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps the node's ResourceSlices in step with the devices it offers, on its own thread ({@value #THREAD_NAME}):
 * {@link #publish} hands it the pool as it should be now (latest wins, never blocks, so NVML's event thread may
 * call it on an XID), the thread syncs it through the {@link ResourceSliceStore}. A failed sync is retried with
 * backoff, or at once when the pool changes; each new failure is logged once, in one line, and the recovery too.
 *
 * <p>What the API server holds can change without the pool changing: a starting kubelet deletes every slice of its
 * node (it may do so after it registered the driver again), another writer may change them. So the thread also syncs
 * when {@link #resync} is called (the kubelet registered the driver), when the store's watch of the node's slices
 * reports any change, and at least every {@code resyncPeriod}; a sync that finds the slices as they should be writes
 * nothing. NVIDIA's driver (the kubelet helper's ResourceSlice controller) republishes 30 s after a change it saw.
 *
 * <p>Closing stops the thread and leaves the slices as they are, as NVIDIA's driver does: the kubelet deletes a
 * driver's slices 30 s after it unregistered unless it registers again, so a restart does not empty the node.
 *
 * <p>Thread-safety: all methods may be called from any thread.
 */
public final class SlicePublisher implements AutoCloseable {

    static final String THREAD_NAME = "dra-resource-slices";
    private static final System.Logger LOG = System.getLogger(SlicePublisher.class.getName());

    private final ResourceSliceStore store;
    private final DraMetrics metrics;
    private final Backoff backoff;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Thread thread;
    private final String driver;
    private final String nodeName;
    private final Duration resyncPeriod;

    // guarded by lock
    private ResourcePool desired;
    private ResourcePool published;
    private ResourceSliceStore.Published last;
    private String failure;
    private long retryAtNanos;
    private boolean closed;
    /** A sync is due even if the pool was published: the API server's slices may differ from it. */
    private boolean resyncDue;
    private String resyncReason;
    private long nextResyncNanos;
    private ResourceSliceStore.Watch watch;

    /**
     * @param driver       the driver whose slices of {@code nodeName} are watched
     * @param resyncPeriod the longest time between two syncs
     */
    public SlicePublisher(ResourceSliceStore store, String driver, String nodeName, Duration resyncPeriod,
                          Backoff.Policy retries, DraMetrics metrics) {
        this.store = Objects.requireNonNull(store, "store");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.driver = Objects.requireNonNull(driver, "driver");
        this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
        this.resyncPeriod = Objects.requireNonNull(resyncPeriod, "resyncPeriod");
        this.nextResyncNanos = System.nanoTime() + resyncPeriod.toNanos();
        this.backoff = new Backoff(retries);
        this.thread = Thread.ofPlatform().name(THREAD_NAME).daemon(true).start(this::loop);
    }

    /** The pool as it should be now; the thread syncs it soon. */
    public void publish(ResourcePool pool) {
        Objects.requireNonNull(pool, "pool");
        lock.lock();
        try {
            if (pool.equals(desired)) {
                return;
            }
            desired = pool;
            retryAtNanos = 0;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Syncs soon even if the pool did not change: the API server's slices may have ({@code reason}, logged when the sync
     * writes anything).
     */
    public void resync(String reason) {
        lock.lock();
        try {
            resyncDue = true;
            resyncReason = reason;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** What the API server holds, as far as this publisher knows. */
    public Status status() {
        lock.lock();
        try {
            boolean current = desired != null && desired.equals(published);
            return new Status(current, Optional.ofNullable(last), Optional.ofNullable(failure));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the slices hold the pool last handed over, the last publication's generation, and the last failure
     * (empty once a sync succeeded again).
     */
    public record Status(boolean current, Optional<ResourceSliceStore.Published> published, Optional<String> failure) {
    }

    private void loop() {
        ResourceSliceStore.Watch started = store.watch(driver, nodeName, () -> resync("the node's ResourceSlices changed"));
        started.problem().ifPresent(p -> LOG.log(System.Logger.Level.WARNING, "{0}; comparing them every {1} instead", p,
                resyncPeriod));
        lock.lock();
        try {
            watch = started;
            if (closed) {
                started.close();
                return;
            }
        } finally {
            lock.unlock();
        }
        while (true) {
            ResourcePool next;
            String reason;
            lock.lock();
            try {
                while (!closed && !due()) {
                    long untilResync = nextResyncNanos - System.nanoTime();
                    if (untilResync <= 0 && desired != null) {
                        resyncDue = true;
                        resyncReason = "the periodic comparison";
                        nextResyncNanos = System.nanoTime() + resyncPeriod.toNanos();
                        continue;
                    }
                    long wait = untilResync <= 0 ? resyncPeriod.toNanos() : untilResync;
                    if (failure != null && desired != null && !desired.equals(published)) {
                        wait = Math.min(wait, Math.max(1, retryAtNanos - System.nanoTime()));
                    }
                    changed.awaitNanos(wait);
                }
                if (closed) {
                    return;
                }
                next = desired;
                reason = resyncDue && next.equals(published) ? resyncReason : null;
                resyncDue = false;
                nextResyncNanos = System.nanoTime() + resyncPeriod.toNanos();
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            sync(next, reason);
        }
    }

    /** Under the lock: there is something to publish (or compare), and no backoff to wait out. */
    private boolean due() {
        return desired != null && (resyncDue || !desired.equals(published))
                && (failure == null || System.nanoTime() - retryAtNanos >= 0);
    }

    /** @param resyncReason why a pool already published is synced again; null when it is new */
    private void sync(ResourcePool pool, String resyncReason) {
        try {
            ResourceSliceStore.Published result = store.sync(pool);
            metrics.resourceSlicesPublished(true);
            lock.lock();
            try {
                if (failure != null) {
                    LOG.log(System.Logger.Level.INFO, "ResourceSlices of pool {0} are published again", pool.name());
                }
                published = pool;
                last = result;
                failure = null;
                backoff.reset();
            } finally {
                lock.unlock();
            }
            if (result.changed() && resyncReason != null) {
                LOG.log(System.Logger.Level.INFO, "republished {0} devices of {1} in pool {2} (generation {3}, {4} slices):"
                        + " the API server''s slices differed from them ({5})", pool.devices().size(), pool.driver(),
                        pool.name(), result.generation(), result.slices(), resyncReason);
            } else if (result.changed()) {
                LOG.log(System.Logger.Level.INFO, "published {0} devices of {1} in pool {2} (generation {3}, {4} slices)",
                        pool.devices().size(), pool.driver(), pool.name(), result.generation(), result.slices());
            }
        } catch (SliceStoreException | RuntimeException e) {
            metrics.resourceSlicesPublished(false);
            String message = String.valueOf(e.getMessage());
            lock.lock();
            try {
                Duration wait = backoff.next();
                retryAtNanos = System.nanoTime() + wait.toNanos();
                if (!message.equals(failure)) {
                    LOG.log(System.Logger.Level.WARNING, "could not publish the ResourceSlices of pool {0}: {1}; retrying with"
                            + " backoff", pool.name(), message);
                }
                failure = message;
            } finally {
                lock.unlock();
            }
        }
    }

    /** Stops the thread and the watch; the slices stay. */
    @Override
    public void close() {
        ResourceSliceStore.Watch running;
        lock.lock();
        try {
            closed = true;
            running = watch;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (running != null) {
            running.close();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
