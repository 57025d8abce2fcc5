package dev.kgpu.plugin.deviceplugin;

import dev.kgpu.agent.Supervisor;
import dev.kgpu.plugin.devices.PluginResource;
import dev.kgpu.plugin.devices.Replication;
import dev.kgpu.plugin.mps.MpsDaemonCheck;
import dev.kgpu.plugin.mps.MpsSettings;
import dev.kgpu.plugin.node.NodeContext;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Keeps each MPS-shared resource from the kubelet until its MPS control daemon runs ({@link MpsDaemonCheck}: the node's
 * {@code .ready} and an answer on the resource's pipe), and withdraws it (its server stops) while the daemon does not
 * run; the other resources are served meanwhile. One line when a resource starts waiting, one when it is advertised,
 * one when it is withdrawn. The checks run off the node's thread (each runs the control program); their results come
 * back to it. NVIDIA's plugin checks once, blocks every resource behind the one waiting, and never withdraws one.
 *
 * <p>Confined to the node's thread, but for the checks themselves.
 */
final class MpsGate {

    /** How often a resource that waits is checked, at most. */
    static final Duration WAITING_CHECK = Duration.ofSeconds(1);
    private static final System.Logger LOG = System.getLogger(MpsGate.class.getName());

    private final NodeContext node;
    private final Function<MpsSettings, MpsDaemonCheck> checks;
    private final Runnable changed;
    /** Whether each gated resource's daemon was last seen running. */
    private final Map<String, Boolean> running = new HashMap<>();
    private ServedResources resources;
    private MpsDaemonCheck check;
    private List<String> gated = List.of();
    private long generation;
    private Supervisor.Timer next;

    /**
     * @param checks  the check of each load of the MPS settings
     * @param changed runs after every check: serves and registers what was released, publishes the status
     */
    MpsGate(NodeContext node, Function<MpsSettings, MpsDaemonCheck> checks, Runnable changed) {
        this.node = Objects.requireNonNull(node, "node");
        this.checks = Objects.requireNonNull(checks, "checks");
        this.changed = Objects.requireNonNull(changed, "changed");
    }

    /** The MPS-shared resources among {@code planned}. */
    static List<String> mpsShared(List<PluginResource> planned) {
        return planned.stream().filter(r -> r.replication() instanceof Replication.Shared shared && shared.mps())
                .map(PluginResource::name).toList();
    }

    /**
     * The resources served now are {@code served}, of {@code planned}: each MPS-shared one is held back until a check
     * finds its daemon running (checked at once).
     */
    void serving(List<PluginResource> planned, Optional<MpsSettings> settings, ServedResources served) {
        cancel();
        generation++;
        resources = served;
        gated = settings.isPresent() ? mpsShared(planned) : List.of();
        running.keySet().retainAll(gated);
        if (gated.isEmpty()) {
            return;
        }
        check = checks.apply(settings.get());
        for (String name : gated) {
            String waiting = "waiting for the MPS control daemon of " + name + ": " + check.waitsFor(name);
            served.hold(name, waiting);
            if (running.putIfAbsent(name, false) == null) {
                LOG.log(System.Logger.Level.INFO, "{0} before advertising it; the other resources are served meanwhile",
                        waiting);
            }
        }
        checkSoon(Duration.ZERO);
    }

    /** Nothing is served any more: no more checks. */
    void stop() {
        cancel();
        generation++;
        gated = List.of();
        running.clear();
    }

    private void cancel() {
        if (next != null) {
            next.cancel();
            next = null;
        }
    }

    private void checkSoon(Duration delay) {
        long round = generation;
        MpsDaemonCheck current = check;
        List<String> names = gated;
        Runnable run = () -> Thread.ofVirtual().name("plugin-mps-check").start(() -> {
            Map<String, Optional<String>> results = new LinkedHashMap<>();
            names.forEach(name -> results.put(name, current.notRunning(name)));
            node.run(() -> checked(round, results));
        });
        if (delay.isZero()) {
            run.run();
        } else {
            next = node.after(delay, run);
        }
    }

    private void checked(long round, Map<String, Optional<String>> results) {
        if (round != generation) {
            return;
        }
        next = null;
        boolean anyWaiting = false;
        for (Map.Entry<String, Optional<String>> result : results.entrySet()) {
            String name = result.getKey();
            boolean wasRunning = running.getOrDefault(name, false);
            boolean held = resources.isHeld(name);
            if (result.getValue().isEmpty()) {
                if (held) {
                    resources.release(name);
                    if (!wasRunning) {
                        LOG.log(System.Logger.Level.INFO, "the MPS control daemon of {0} runs; advertising {0}", name);
                    }
                }
                running.put(name, true);
            } else {
                anyWaiting = true;
                String why = result.getValue().get();
                if (wasRunning) {
                    LOG.log(System.Logger.Level.WARNING, "the MPS control daemon of {0} does not run ({1}); withdrawing {0}"
                            + " until it does", name, why);
                }
                resources.hold(name, "waiting for the MPS control daemon of " + name + ": " + why);
                running.put(name, false);
            }
        }
        changed.run();
        Duration interval = check.settings().checkInterval();
        checkSoon(anyWaiting && interval.compareTo(WAITING_CHECK) > 0 ? WAITING_CHECK : interval);
    }
}
