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

    // guarded by lock
    private ResourcePool desired;
    private ResourcePool published;
    private ResourceSliceStore.Published last;
    private String failure;
    private long retryAtNanos;
    private boolean closed;

    public SlicePublisher(ResourceSliceStore store, Backoff.Policy retries, DraMetrics metrics) {
        this.store = Objects.requireNonNull(store, "store");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
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
        while (true) {
            ResourcePool next;
            lock.lock();
            try {
                while (!closed && !due()) {
                    if (failure != null && desired != null && !desired.equals(published)) {
                        changed.awaitNanos(Math.max(1, retryAtNanos - System.nanoTime()));
                    } else {
                        changed.await();
                    }
                }
                if (closed) {
                    return;
                }
                next = desired;
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            sync(next);
        }
    }

    /** Under the lock: there is something to publish, and no backoff to wait out. */
    private boolean due() {
        return desired != null && !desired.equals(published) && (failure == null || System.nanoTime() - retryAtNanos >= 0);
    }

    private void sync(ResourcePool pool) {
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
            if (result.changed()) {
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

    /** Stops the thread; the slices stay. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
