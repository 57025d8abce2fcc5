package dev.kgpu.plugin.node;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Runs a {@link NodeRuntime} on one thread, {@value #THREAD_NAME}, fed by one queue: its start, its tasks and timers,
 * SIGHUP, SIGTERM. Only this thread calls the runtime.
 *
 * <p>Thread-safety: the public methods may be called from any thread.
 *
 * @param <C> the plugin's settings
 */
public final class NodeSupervisor<C extends NodeConfiguration> {

    static final String THREAD_NAME = "plugin-supervisor";
    static final String TIMER_THREAD = "plugin-retries";
    private static final System.Logger LOG = System.getLogger(NodeSupervisor.class.getName());

    private final NodeRuntime<C> node;
    private final Supplier<C> reload;
    private final BiConsumer<Integer, String> exit;
    private final BlockingQueue<Event> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final ScheduledExecutorService timer;

    private sealed interface Event {
        record Task(Runnable task) implements Event {
        }

        record Reload() implements Event {
        }

        record Stop() implements Event {
        }
    }

    /**
     * @param node     the runtime to run
     * @param settings the settings loaded at start
     * @param reload   loads the settings again (SIGHUP), the way the entry point did; throws {@code ConfigException}
     *                 when they are bad
     * @param exit     called (on the node's thread) when the node cannot go on and the plugin should exit with a
     *                 status; the caller decides how to exit
     */
    public NodeSupervisor(NodeRuntime<C> node, C settings, Supplier<C> reload, BiConsumer<Integer, String> exit) {
        this.node = Objects.requireNonNull(node, "node");
        this.reload = Objects.requireNonNull(reload, "reload");
        this.exit = Objects.requireNonNull(exit, "exit");
        Objects.requireNonNull(settings, "settings");
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name(TIMER_THREAD).daemon(true).factory());
        Control control = new Control() {
            @Override
            public void post(Runnable task) {
                queue.add(new Event.Task(task));
            }

            @Override
            public NodeContext.Timer after(Duration delay, Runnable task) {
                try {
                    ScheduledFuture<?> future = timer.schedule(() -> queue.add(new Event.Task(task)), delay.toMillis(),
                            TimeUnit.MILLISECONDS);
                    return () -> future.cancel(false);
                } catch (RejectedExecutionException e) {
                    return () -> { };
                }
            }

            @Override
            public void exit(int status, String reason) {
                NodeSupervisor.this.exit.accept(status, reason);
            }
        };
        this.thread = Thread.ofPlatform().name(THREAD_NAME).unstarted(() -> loop(settings, control));
    }

    /** Starts the node's thread; it starts the node. */
    public void start() {
        thread.start();
    }

    /** SIGHUP: load the settings again and serve with them (or keep the running ones if bad). */
    public void reload() {
        queue.add(new Event.Reload());
    }

    /**
     * SIGTERM: stops serving, removes the sockets and ends the node's thread; waits up to {@code timeout}. Returns
     * whether it has stopped by then. Any number of callers may wait for the same stop.
     */
    public boolean stop(Duration timeout) {
        if (thread.getState() == Thread.State.NEW) {
            return true;
        }
        queue.add(new Event.Stop());
        try {
            return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void loop(C settings, Control control) {
        try {
            node.start(settings, control);
            while (true) {
                Event event = queue.take();
                switch (event) {
                    case Event.Stop stop -> {
                        shutdown();
                        return;
                    }
                    case Event.Reload reloading -> reloadSettings();
                    case Event.Task task -> node.on(task.task());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            shutdown();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "the plugin supervisor failed", e);
            shutdown();
            exit.accept(1, "the plugin supervisor failed: " + e);
        } finally {
            stopped.countDown();
        }
    }

    private void reloadSettings() {
        C candidate;
        try {
            candidate = reload.get();
        } catch (RuntimeException e) {
            String reason = String.valueOf(e.getMessage());
            LOG.log(System.Logger.Level.ERROR, "SIGHUP: keeping the running config: {0}", reason);
            node.reloadRejected(reason);
            return;
        }
        Optional<String> refused = node.reload(candidate);
        refused.ifPresent(reason -> LOG.log(System.Logger.Level.ERROR, "SIGHUP: keeping the running config: {0}", reason));
    }

    private void shutdown() {
        timer.shutdownNow();
        node.stop();
    }
}
