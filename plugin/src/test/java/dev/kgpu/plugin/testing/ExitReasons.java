package dev.kgpu.plugin.testing;

import dev.kgpu.agent.Supervisor;

import java.util.List;

/**
 * A supervisor handler that tells why its agent asked to exit ({@link Supervisor.Control#exit}: failOnInitError, a
 * plan the node cannot meet) or failed: the reasons a test asserts, in order, added to a list it holds.
 */
public final class ExitReasons<S, E> implements Supervisor.Handler<S, E> {

    private final Supervisor.Handler<S, E> handler;
    private final List<String> reasons;

    private ExitReasons(Supervisor.Handler<S, E> handler, List<String> reasons) {
        this.handler = handler;
        this.reasons = reasons;
    }

    /** {@code handler}, adding each exit's reason to {@code reasons} (a thread-safe list). */
    public static <S, E> Supervisor.Handler<S, E> recording(Supervisor.Handler<S, E> handler, List<String> reasons) {
        return new ExitReasons<>(handler, reasons);
    }

    @Override
    public void start(S settings, Supervisor.Control<E> control) {
        handler.start(settings, control);
    }

    @Override
    public void on(E event) {
        handler.on(event);
    }

    @Override
    public Supervisor.ReloadOutcome reload(S candidate) {
        return handler.reload(candidate);
    }

    @Override
    public void reloadRejected(String reason) {
        handler.reloadRejected(reason);
    }

    @Override
    public void stop(Supervisor.Ending why) {
        switch (why) {
            case Supervisor.Ending.Exited exited -> reasons.add(exited.reason());
            case Supervisor.Ending.Failed failed -> reasons.add("the plugin supervisor failed: " + failed.error());
            case Supervisor.Ending.Stopped stopped -> {
            }
        }
        handler.stop(why);
    }

    @Override
    public void release() {
        handler.release();
    }
}
