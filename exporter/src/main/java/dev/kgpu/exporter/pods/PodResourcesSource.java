package dev.kgpu.exporter.pods;

import java.util.List;

/** The kubelet's pod resources, as plain values (the gRPC client is the production implementation). */
public interface PodResourcesSource extends AutoCloseable {

    /** Every container's devices now ({@code PodResourcesLister/List}). */
    List<ContainerDevices> list() throws PodResourcesException;

    @Override
    void close();
}
