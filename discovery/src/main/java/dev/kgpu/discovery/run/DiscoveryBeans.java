package dev.kgpu.discovery.run;

import dev.kgpu.discovery.publish.SinkFactory;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.InstantSource;

/** CDI wiring: the beans the entry point and the health check share. */
public class DiscoveryBeans {

    @Produces
    @Singleton
    PassStatus passStatus() {
        return new PassStatus();
    }

    @Produces
    @Singleton
    InstantSource clock() {
        return InstantSource.system();
    }

    @Produces
    @Singleton
    SinkFactory sinkFactory(KubernetesClient client) {
        return new SinkFactory(client);
    }
}
