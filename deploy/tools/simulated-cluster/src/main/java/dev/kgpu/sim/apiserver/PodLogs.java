package dev.kgpu.sim.apiserver;

import dev.kgpu.sim.runtime.ContainerLogs;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Container logs of the simulated node's pods, which the API server serves on {@code pods/log} (the CRUD
 * server stores objects, not logs). Written by the node's {@code SchedulerAndKubelet} as containers start,
 * dropped when the pod is deleted.
 *
 * <p>Thread-safe.
 */
public final class PodLogs implements ContainerLogs {

    private record Key(String namespace, String pod, String container) {
    }

    private final Map<Key, String> logs = new ConcurrentHashMap<>();

    @Override
    public void put(String namespace, String pod, String container, String log) {
        logs.put(new Key(namespace, pod, container), log);
    }

    /** The container's log; with {@code container} empty, the log of the pod's only container. */
    public Optional<String> get(String namespace, String pod, Optional<String> container) {
        if (container.isPresent()) {
            return Optional.ofNullable(logs.get(new Key(namespace, pod, container.get())));
        }
        var matches = logs.entrySet().stream()
                .filter(e -> e.getKey().namespace().equals(namespace) && e.getKey().pod().equals(pod)).toList();
        return matches.size() == 1 ? Optional.of(matches.getFirst().getValue()) : Optional.empty();
    }

    /** Forgets every log of the pod. */
    @Override
    public void remove(String namespace, String pod) {
        logs.keySet().removeIf(k -> k.namespace().equals(namespace) && k.pod().equals(pod));
    }
}
