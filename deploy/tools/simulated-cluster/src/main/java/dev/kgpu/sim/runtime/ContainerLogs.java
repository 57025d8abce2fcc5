package dev.kgpu.sim.runtime;

/**
 * Where the {@link SchedulerAndKubelet} leaves its containers' logs for the API server's {@code pods/log}
 * (a CRUD test server stores objects, not logs): the simulated node's API server serves them from a store; a
 * test on the Kubernetes API test server adds an expectation per log.
 *
 * <p>Called on the {@link SchedulerAndKubelet}'s thread only.
 */
public interface ContainerLogs {

    /** A container started: its log. */
    void put(String namespace, String pod, String container, String log);

    /** The pod was deleted: its logs go with it. */
    void remove(String namespace, String pod);
}
