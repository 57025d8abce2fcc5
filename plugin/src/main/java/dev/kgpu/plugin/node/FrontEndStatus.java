package dev.kgpu.plugin.node;

import java.util.List;
import java.util.Map;

/**
 * What one front-end has achieved, as the health checks read it: each front-end's own status record implements it,
 * and the node's status merges them without knowing which they are. Immutable.
 */
public interface FrontEndStatus {

    /** The front-end's {@link FrontEnd#name()}. */
    String frontEnd();

    /** Liveness: its servers run. */
    boolean live();

    /** Readiness: the kubelet can use what it serves. */
    boolean ready();

    /** What keeps it from serving everything it should, one line each. */
    List<String> problems();

    /** The facts a health check shows, by name, in order: each value a String, Boolean or Long. */
    Map<String, Object> details();
}
