package dev.kgpu.sim.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How many running containers each GPU (or MIG device) is in, at every moment: the runtime counts a container in when
 * it starts running with it and out when its pod stops (a GPU and one of its MIG devices are counted apart). A GPU in two containers at once is
 * the double hand-out a node must never make; it is said in one WARNING line naming both holders (the line the
 * simulated node's tests look for), and the most each GPU was ever in is kept. Thread-safe.
 */
public final class GpuOccupancy {

    /** The start of the line a GPU in more than one container gets. */
    public static final String SHARED = "GPU occupancy: a GPU is in more than one container:";
    private static final System.Logger LOG = System.getLogger(GpuOccupancy.class.getName());

    private final Map<String, List<String>> holders = new LinkedHashMap<>();
    private final Map<String, Integer> most = new LinkedHashMap<>();
    private long started;

    /** Container {@code holder} ({@code namespace/pod/container}) runs with {@code gpus} (GPU or MIG UUIDs). */
    public synchronized void started(String holder, List<String> gpus) {
        started++;
        for (String gpu : gpus) {
            List<String> in = holders.computeIfAbsent(gpu, g -> new ArrayList<>());
            in.add(holder);
            int before = most.getOrDefault(gpu, 0);
            if (in.size() > before) {
                most.put(gpu, in.size());
            }
            if (in.size() > 1) {
                LOG.log(System.Logger.Level.WARNING, "{0} {1} is in {2}: {3}", SHARED, gpu, in.size(), in);
            }
        }
    }

    /** Every container of pod {@code namespace/pod} stopped. */
    public synchronized void podStopped(String namespace, String pod) {
        String prefix = namespace + "/" + pod + "/";
        holders.values().forEach(in -> in.removeIf(h -> h.startsWith(prefix)));
    }

    /** The most containers each GPU was ever in at once. */
    public synchronized Map<String, Integer> most() {
        return Map.copyOf(most);
    }

    /** Containers started with a GPU so far. */
    public synchronized long started() {
        return started;
    }
}
