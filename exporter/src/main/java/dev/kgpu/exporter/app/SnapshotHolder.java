package dev.kgpu.exporter.app;

import dev.kgpu.exporter.exposition.Snapshot;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The latest rendered collection. The collection thread publishes; every scrape reads the one reference
 * and writes the snapshot's bytes, so a scrape never waits for NVML or the kubelet.
 */
@ApplicationScoped
public class SnapshotHolder {

    private volatile Snapshot current = Snapshot.empty();

    public Snapshot current() {
        return current;
    }

    public void publish(Snapshot snapshot) {
        current = snapshot;
    }
}
