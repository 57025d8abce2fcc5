package dev.kgpu.agent;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.PriorityQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The one thread that runs an agent's lifecycle: every kgpu agent supplies a {@link Handler} (its domain: a
 * labelling pass, a collection, a validation pass, the node runtime) and, when SIGHUP reloads something, a loader;
 * the engine owns the rest, the same for every agent:
 *
 * <ul>
 *   <li>the agent's named thread and its queue: the handler's methods all run on that thread, one at a time, in
 *       the order their causes arrived, so the handler needs no locks for its own state;</li>
 *   <li>timers ({@link Control#after}): an event delivered to {@link Handler#on} after a delay, unless cancelled
 *       first;</li>
 *   <li>SIGHUP: the {@link HangupSignal} relay, installed by the engine, runs the loader on the agent thread; what
 *       it loaded goes to {@link Handler#reload}; when it throws (a bad config file), or the handler rejects what it
 *       loaded, the engine logs {@code SIGHUP: keeping <the running config>: <reason>} once at ERROR and tells
 *       {@link Handler#reloadRejected} (for status);</li>
 *   <li>the end: {@link #stop} (Quarkus' shutdown), SIGTERM or {@link Control#exit} (the agent gives up, or a
 *       one-shot run is done) runs {@link Handler#stop} once, then {@link #awaitExit} returns the exit status, then
 *       {@link Handler#release} runs and the thread ends. Anything a handler throws, an {@link Error} too, is logged
 *       once at ERROR, stops the agent and makes the status 1: an agent never exits 0 after something
 *       unexpected.</li>
 *   <li>SIGTERM, for an agent its entry point launched ({@link Launch#main}): the {@link StopSignal} relay, installed
 *       by the engine before the handler starts (a SIGTERM during the start stops the agent once the start returned),
 *       stops the agent as {@link #stop} does, and the entry point returns its status (0 after a clean
 *       stop, as NVIDIA's agents exit, not the JVM's 143). The process's exit does not wait for
 *       {@link Handler#release}; a handler that holds NVML closes it in {@link Handler#stop}, as the exit runs the
 *       NVML library's destructors, which must find no thread inside it (an event thread in
 *       {@code nvmlEventSetWait_v2} crashed the exiting process so).</li>
 * </ul>
 *
 * <pre>{@code
 * Supervisor<DiscoverySettings, Due> supervisor = Supervisor.builder("discovery-supervisor", handler)
 *         .reloads("the configuration in use", () -> settings(loader.load()))   // SIGHUP
 *         .start(settings);                   // returns once handler.start ran on the thread
 * ...
 * supervisor.stop(Duration.ofSeconds(20));    // at shutdown: handler.stop, then the thread ends
 * int status = supervisor.awaitExit();        // 0, or what the handler asked for with control.exit, or 1
 * }</pre>
 *
 * <p>The public methods of this class and of {@link Control} may be called from any thread. Timers run on the
 * monotonic {@link System#nanoTime()} clock; {@link Control#now()} is the builder's {@link InstantSource} (for
 * timestamps in a status), which tests may fix. The thread is a daemon: the agent lives as long as its entry
 * point waits in {@link #awaitExit}, not because the thread runs.
 *
 * @param <S> what the handler is started with and what SIGHUP reloads (an agent's settings record)
 * @param <E> the agent's own events
 */
public final class Supervisor<S, E> {

    private static final System.Logger LOG = System.getLogger(Supervisor.class.getName());

    /**
     * An agent's domain, run by the engine. Every method runs on the agent's thread, never two at once.
     *
     * @param <S> the settings
     * @param <E> the agent's own events
     */
    public interface Handler<S, E> {

        /**
         * The first thing on the agent's thread: start with {@code settings}. {@code control} is what the handler
         * may ask of the engine from now on, from any thread (its adapters' callbacks post through it).
         */
        void start(S settings, Control<E> control);

        /** One of the agent's events: posted with {@link Control#post} or delivered by a timer. */
        void on(E event);

        /**
         * SIGHUP loaded {@code candidate} without complaint: apply it, or reject it (the running settings stay;
         * the engine logs the reason and calls {@link #reloadRejected}). Agents that reload nothing keep the
         * default, which is never called without a loader.
         */
        default ReloadOutcome reload(S candidate) {
            return new ReloadOutcome.Rejected("this agent reloads nothing");
        }

        /** SIGHUP's loader failed, or {@link #reload} rejected what it loaded: the running settings stay. */
        default void reloadRejected(String reason) {
        }

        /**
         * The end, called once: stop what runs and undo what is seen outside the process (sockets, files). Runs with
         * the thread's interrupt flag cleared, so files can still be written and removed. The exit status is known
         * once this returns.
         */
        void stop(Ending why);

        /**
         * After {@link #stop}, once the exit status is known: release what the process's own exit would release
         * too, safely while other threads still run (memory, threads). {@link Supervisor#stop} waits for it; a process
         * exiting on SIGTERM does not, so NVML is not closed here but in {@link #stop}: the exit runs NVML's library
         * destructors, which must find no thread inside the library.
         */
        default void release() {
        }
    }

    /**
     * What a handler may ask of the engine. Thread-safe.
     *
     * @param <E> the agent's own events
     */
    public interface Control<E> {

        /** Delivers {@code event} to {@link Handler#on} on the agent thread, after what is queued before it. */
        void post(E event);

        /** Delivers {@code event} to {@link Handler#on} after {@code delay}, unless {@link Timer#cancel}led first. */
        Timer after(Duration delay, E event);

        /**
         * Ends the agent with {@code status}: after the handler call in progress returns, {@link Handler#stop} runs
         * and {@link #awaitExit} returns {@code status}. Logged once: at INFO for 0, else at ERROR, with {@code reason}.
         */
        void exit(int status, String reason);

        /** Now, by the engine's clock ({@link Builder#clock}); for timestamps, not for timers. */
        Instant now();
    }

    /** A delayed event not yet delivered. */
    public interface Timer {
        /**
         * Keeps the event from being delivered; returns false when it was delivered already (or cancelled). Called on
         * the agent thread before the timer fired, it is never delivered.
         */
        boolean cancel();
    }

    /** What {@link Handler#reload} did with the settings SIGHUP loaded. */
    public sealed interface ReloadOutcome {

        ReloadOutcome APPLIED = new Applied();

        /** The agent runs with the new settings. */
        record Applied() implements ReloadOutcome {
        }

        /** The agent keeps its running settings, because of {@code reason} (one line). */
        record Rejected(String reason) implements ReloadOutcome {
            public Rejected {
                Objects.requireNonNull(reason, "reason");
            }
        }
    }

    /** Why an agent stops; its {@link #status()} is the process's exit status. */
    public sealed interface Ending {

        int status();

        /** {@link Supervisor#stop} was called, or SIGTERM came: the application shuts down. Status 0. */
        record Stopped() implements Ending {
            @Override
            public int status() {
                return 0;
            }
        }

        /** The handler asked to end ({@link Control#exit}). */
        record Exited(int status, String reason) implements Ending {
            public Exited {
                Objects.requireNonNull(reason, "reason");
            }
        }

        /** A handler threw {@code error}, or the thread was interrupted by someone else. Status 1. */
        record Failed(Throwable error) implements Ending {
            public Failed {
                Objects.requireNonNull(error, "error");
            }

            @Override
            public int status() {
                return 1;
            }
        }
    }

    /**
     * Starts a supervisor.
     *
     * @param threadName the agent's thread, as thread dumps and log lines show it: {@code discovery-supervisor}
     * @param handler    the agent's domain
     */
    public static <S, E> Builder<S, E> builder(String threadName, Handler<S, E> handler) {
        return new Builder<>(threadName, handler);
    }

    /** The options of a supervisor, then {@link #start}. Not thread-safe; used once. */
    public static final class Builder<S, E> {
        private final String threadName;
        private final Handler<S, E> handler;
        private Supplier<? extends S> loader;
        private String running;
        private InstantSource clock = InstantSource.system();
        private boolean interruptOnStop;

        private Builder(String threadName, Handler<S, E> handler) {
            this.threadName = Objects.requireNonNull(threadName, "threadName");
            this.handler = Objects.requireNonNull(handler, "handler");
        }

        /**
         * SIGHUP (and {@link Supervisor#reload}) loads the settings again with {@code loader}, on the agent thread.
         * The engine installs the {@link HangupSignal} relay at {@link #start}, before the handler starts; a SIGHUP
         * while it starts reloads once it has started. Without this, SIGHUP keeps the JVM's meaning (the process
         * ends).
         *
         * @param running what the settings in use are called in the log lines, e.g. {@code the running config}:
         *                {@code SIGHUP: keeping the running config: invalid configuration: ...}
         * @param loader  the settings, read the way the entry point read them; throws (a
         *                {@code dev.kgpu.config.ConfigException}) with one line saying what is wrong
         */
        public Builder<S, E> reloads(String running, Supplier<? extends S> loader) {
            this.running = Objects.requireNonNull(running, "running");
            this.loader = Objects.requireNonNull(loader, "loader");
            return this;
        }

        /** The clock of {@link Control#now()}; the system clock unless set. */
        public Builder<S, E> clock(InstantSource clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * {@link Supervisor#stop} interrupts the handler call in progress (not {@link Handler#stop}), for work that
         * may wait long and ends cleanly when interrupted (the validator's sample pod).
         */
        public Builder<S, E> interruptOnStop() {
            this.interruptOnStop = true;
            return this;
        }

        /**
         * Starts the thread, which calls {@link Handler#start} with {@code settings} first; returns once that
         * returned (or threw), so what it did (a first collection, a first pass) is done by then.
         */
        public Supervisor<S, E> start(S settings) {
            Supervisor<S, E> supervisor = new Supervisor<>(this, Objects.requireNonNull(settings, "settings"));
            if (loader != null) {
                // Before the handler starts: a SIGHUP sent once it said it is ready (a file written, a socket served)
                // but before start returned is a reload queued behind the start, not the JVM's default, which ends
                // the process with status 129.
                HangupSignal.relayTo(supervisor::reload);
            }
            if (Launch.launchedByMain()) {
                // SIGTERM: stop, and the entry point exits with the status. Before the handler starts too: a SIGTERM
                // while it starts (its sockets served, its files written) is a stop queued behind the start, which
                // cleans them up, not the JVM's shutdown, which exits 143 while the start still runs and leaves them.
                StopSignal.relayTo(supervisor::stopForExit);
            }
            supervisor.thread.start();
            supervisor.awaitStarted();
            return supervisor;
        }
    }

    /** What the thread takes from its queue. */
    private sealed interface Message {
        record Event<E>(E event) implements Message {
        }

        record Reload() implements Message {
        }

        /** Wakes the thread to look at the timers again: one was set from another thread. */
        record TimerSet() implements Message {
        }

        record Exit(int status, String reason) implements Message {
        }

        record Stop() implements Message {
        }
    }

    private static final int PENDING = 0;
    private static final int FIRED = 1;
    private static final int CANCELLED = 2;

    private final class PendingTimer implements Timer, Comparable<PendingTimer> {
        final long due;
        final long order;
        final E event;
        final AtomicInteger state = new AtomicInteger(PENDING);

        PendingTimer(long due, long order, E event) {
            this.due = due;
            this.order = order;
            this.event = event;
        }

        @Override
        public boolean cancel() {
            boolean cancelled = state.compareAndSet(PENDING, CANCELLED);
            if (cancelled && Thread.currentThread() == thread) {
                timers.remove(this);
            }
            return cancelled;
        }

        @Override
        public int compareTo(PendingTimer other) {
            int byDue = Long.compare(due - other.due, 0);
            return byDue != 0 ? byDue : Long.compare(order, other.order);
        }
    }

    /** Where the thread is, for interrupting only the handler's work. Guarded by {@code this}. */
    private enum Phase { WAITING, HANDLING, STOPPING }

    private final String name;
    private final Handler<S, E> handler;
    private final Supplier<? extends S> loader;
    private final String running;
    private final InstantSource clock;
    private final boolean interruptOnStop;
    private final BlockingQueue<Message> queue = new LinkedBlockingQueue<>();
    /** Timers set from other threads, moved into {@link #timers} by the agent thread. */
    private final BlockingQueue<PendingTimer> timersSet = new LinkedBlockingQueue<>();
    /** Confined to the agent thread. */
    private final PriorityQueue<PendingTimer> timers = new PriorityQueue<>();
    private final AtomicLong timerOrder = new AtomicLong();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    /** Counted down once {@link Handler#release} returned. */
    private final CountDownLatch released = new CountDownLatch(1);
    private final CountDownLatch started = new CountDownLatch(1);
    private final Control<E> control = new EngineControl();
    private final Thread thread;
    private Phase phase = Phase.WAITING;
    private boolean stopRequested;
    /** Stopped for the process's exit (SIGTERM): nobody waits for {@link Handler#release}. */
    private volatile boolean forExit;
    /** {@link #stopRequested}, read by the agent thread between handler calls without taking the lock. */
    private volatile boolean stopping;
    /** Set on the agent thread when the loop is to end; confined to it. */
    private Ending ending;

    private Supervisor(Builder<S, E> builder, S settings) {
        this.name = builder.threadName;
        this.handler = builder.handler;
        this.loader = builder.loader;
        this.running = builder.running;
        this.clock = builder.clock;
        this.interruptOnStop = builder.interruptOnStop;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(() -> loop(settings));
    }

    private void awaitStarted() {
        try {
            started.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // API

    /** The handler's control, for adapters built outside it that post events. */
    public Control<E> control() {
        return control;
    }

    /** Posts {@code event} to the handler ({@link Control#post}). */
    public void post(E event) {
        control.post(event);
    }

    /** SIGHUP: loads the settings again on the agent thread and hands them to the handler. */
    public void reload() {
        if (loader == null) {
            throw new IllegalStateException(name + " reloads nothing: its builder was given no loader");
        }
        queue.add(new Message.Reload());
    }

    /**
     * Stops the agent: {@link Handler#stop} runs on the agent thread after the handler call in progress (events still
     * queued and timers not yet due are dropped), then {@link Handler#release}, then the thread ends. Waits up to
     * {@code timeout} and returns whether it ended by then (after SIGTERM's stop: whether the exit status is known,
     * as the process exits without waiting for the release). Any number of callers, on any thread, may wait for the
     * same stop; on the agent thread itself it only asks, and returns false (a handler ends the agent with
     * {@link Control#exit}).
     */
    public boolean stop(Duration timeout) {
        requestStop();
        if (Thread.currentThread() == thread) {
            return false;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        if (awaitExit(timeout).isEmpty()) {
            return false;
        }
        if (forExit) {
            return true;
        }
        try {
            return released.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * SIGTERM's stop, on the way out of the process: asks for the stop as {@link #stop} does and returns at once
     * (it runs on the signal's thread). {@link #awaitExit} returns once {@link Handler#stop} returned; from then on
     * {@link #stop} waits no longer for {@link Handler#release}, which the process's exit need not wait for.
     */
    public void stopForExit() {
        forExit = true;
        requestStop();
    }

    private void requestStop() {
        synchronized (this) {
            if (!stopRequested) {
                stopRequested = true;
                stopping = true;
                queue.add(new Message.Stop());
                if (interruptOnStop && phase == Phase.HANDLING) {
                    thread.interrupt();
                }
            }
        }
    }

    /** Blocks until the agent has ended; its exit status. */
    public int awaitExit() {
        return exit.join();
    }

    /** Waits up to {@code timeout} for the agent to end; its exit status, or empty while it still runs. */
    public OptionalInt awaitExit(Duration timeout) {
        try {
            return OptionalInt.of(exit.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return exit.isDone() ? OptionalInt.of(exit.join()) : OptionalInt.empty();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Whether the agent still runs: started, and not yet ended. */
    public boolean running() {
        return !exit.isDone();
    }

    // ---------------------------------------------------------------------------------------------
    // the agent thread

    private void loop(S settings) {
        try {
            handle(() -> handler.start(settings, control));
        } finally {
            started.countDown();
        }
        try {
            while (ending == null) {
                if (stopping) {
                    ending = new Ending.Stopped(); // before queued events and due timers: stop comes first
                    break;
                }
                PendingTimer due = dueTimer();
                if (due != null) {
                    if (due.state.compareAndSet(PENDING, FIRED)) {
                        handle(() -> handler.on(due.event));
                    }
                    continue;
                }
                Message message = next();
                if (message != null) {
                    take(message);
                }
            }
        } catch (InterruptedException e) {
            synchronized (this) {
                if (!stopRequested) {
                    LOG.log(Level.ERROR, "{0} was interrupted; stopping", name);
                    ending = new Ending.Failed(e);
                } else {
                    ending = new Ending.Stopped();
                }
            }
        }
        end();
    }

    private void take(Message message) {
        switch (message) {
            case Message.Event<?> event -> {
                @SuppressWarnings("unchecked")
                E posted = (E) event.event();
                handle(() -> handler.on(posted));
            }
            case Message.Reload reload -> handle(this::reloadNow);
            case Message.TimerSet set -> {
            }
            case Message.Exit(int status, String reason) -> exiting(status, reason);
            case Message.Stop stop -> ending = new Ending.Stopped();
        }
    }

    private void reloadNow() {
        LOG.log(Level.DEBUG, "SIGHUP: reloading {0}", running); // the handler says what it applied, the engine what it kept
        S candidate;
        try {
            candidate = Objects.requireNonNull(loader.get(), "the loader returned null");
        } catch (RuntimeException e) {
            rejected(e.getMessage() != null ? e.getMessage() : e.toString());
            return;
        }
        if (handler.reload(candidate) instanceof ReloadOutcome.Rejected(String reason)) {
            rejected(reason);
        }
    }

    private void rejected(String reason) {
        LOG.log(Level.ERROR, "SIGHUP: keeping {0}: {1}", running, reason);
        handler.reloadRejected(reason);
    }

    /** Runs one handler call; whatever it throws ends the agent. */
    private void handle(Runnable call) {
        synchronized (this) {
            phase = Phase.HANDLING;
        }
        try {
            call.run();
        } catch (RuntimeException | Error e) {
            // an OutOfMemoryError too: the images' JVM exits at once on it (-XX:+ExitOnOutOfMemoryError)
            LOG.log(Level.ERROR, "the agent stops on an unexpected error", e);
            if (ending == null) {
                ending = new Ending.Failed(e);
            }
        } finally {
            synchronized (this) {
                phase = Phase.WAITING;
            }
        }
    }

    private void exiting(int status, String reason) {
        if (ending == null) {
            LOG.log(status == 0 ? Level.INFO : Level.ERROR, "exiting with status {0}: {1}", status, reason);
            ending = new Ending.Exited(status, reason);
        }
    }

    /** The first timer that is due, moving the ones set from other threads in first; null when none is due. */
    private PendingTimer dueTimer() {
        for (PendingTimer set; (set = timersSet.poll()) != null; ) {
            if (set.state.get() == PENDING) {
                timers.add(set);
            }
        }
        while (!timers.isEmpty() && timers.peek().state.get() != PENDING) {
            timers.poll();
        }
        PendingTimer first = timers.peek();
        if (first != null && first.due - System.nanoTime() <= 0) {
            return timers.poll();
        }
        return null;
    }

    /** The next message, waiting no longer than until the first timer is due; null when that came first. */
    private Message next() throws InterruptedException {
        PendingTimer first = timers.peek();
        if (first == null) {
            return queue.take();
        }
        long wait = first.due - System.nanoTime();
        return wait <= 0 ? queue.poll() : queue.poll(wait, TimeUnit.NANOSECONDS);
    }

    private void end() {
        synchronized (this) {
            phase = Phase.STOPPING;
        }
        Thread.interrupted(); // stop may write and remove files: an interrupt from stop(...) is spent
        Ending why = ending;
        int status = why.status();
        try {
            handler.stop(why);
        } catch (RuntimeException | Error e) {
            LOG.log(Level.ERROR, "the agent did not stop cleanly", e);
            status = 1;
        } finally {
            timers.clear();
            timersSet.clear();
            queue.clear();
            exit.complete(status);
        }
        try {
            handler.release();
        } catch (RuntimeException | Error e) {
            LOG.log(Level.WARNING, "the agent did not release everything it held", e);
        } finally {
            released.countDown();
        }
    }

    private final class EngineControl implements Control<E> {

        @Override
        public void post(E event) {
            Objects.requireNonNull(event, "event");
            if (!exit.isDone()) {
                queue.add(new Message.Event<>(event));
            }
        }

        @Override
        public Timer after(Duration delay, E event) {
            Objects.requireNonNull(delay, "delay");
            Objects.requireNonNull(event, "event");
            long nanos = delay.isNegative() ? 0 : saturatedNanos(delay);
            PendingTimer timer = new PendingTimer(System.nanoTime() + nanos, timerOrder.incrementAndGet(), event);
            if (Thread.currentThread() == thread) {
                timers.add(timer);
            } else if (!exit.isDone()) {
                timersSet.add(timer);
                queue.add(new Message.TimerSet());
            }
            return timer;
        }

        @Override
        public void exit(int status, String reason) {
            Objects.requireNonNull(reason, "reason");
            if (Thread.currentThread() == thread) {
                exiting(status, reason);
            } else {
                queue.add(new Message.Exit(status, reason));
            }
        }

        @Override
        public Instant now() {
            return clock.instant();
        }
    }

    /** Long enough to be never in practice (292 years), without overflowing. */
    private static long saturatedNanos(Duration delay) {
        return delay.compareTo(Duration.ofDays(365L * 100)) > 0 ? Duration.ofDays(365L * 100).toNanos() : delay.toNanos();
    }

    @Override
    public String toString() {
        return "Supervisor[" + name + "]";
    }
}
