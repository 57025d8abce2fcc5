package dev.kgpu.plugin.dra.grpc;

import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.plugin.dra.ClaimPreparer;
import dev.kgpu.plugin.dra.DraKubelet;
import dev.kgpu.plugin.dra.DraNames;
import dev.kgpu.kubelet.podresources.v1.ContainerDevices;
import dev.kgpu.kubelet.podresources.v1.ContainerResources;
import dev.kgpu.kubelet.podresources.v1.ListPodResourcesRequest;
import dev.kgpu.kubelet.podresources.v1.ListPodResourcesResponse;
import dev.kgpu.kubelet.podresources.v1.PodResources;
import dev.kgpu.kubelet.podresources.v1.PodResourcesListerGrpc;
import dev.kgpu.plugin.node.AllocationLedger;
import io.grpc.BindableService;
import io.grpc.StatusRuntimeException;
import io.grpc.Server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The kubelet's DRA plugin API over gRPC on Unix sockets ({@link UnixSocketTransport}): {@code v1.DRAPlugin} and
 * {@code v1beta1.DRAPlugin} on {@code <plugins>/gpu.nvidia.com/dra.sock}, calls run on virtual threads
 * ({@value #CALL_THREADS}); {@code pluginregistration.Registration} on {@code <plugins_registry>/gpu.nvidia.com-reg.sock};
 * {@code v1.PodResourcesLister/List} on the kubelet's PodResources socket (dialled again when it fails or the socket file
 * was replaced, as a restarted kubelet does). Only the node's thread calls {@link #serve}, one thread
 * {@link #deviceAllocations}.
 */
public final class GrpcDraKubelet implements DraKubelet {

    static final String CALL_THREADS = "dra-call-";
    private static final String TRANSPORT_NAME = "dra-grpc";

    private final Path serviceSocket;
    private final Path registrationSocket;
    private final UnixSocketTransport transport = new UnixSocketTransport(TRANSPORT_NAME, 1);
    private final ExecutorService calls = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(CALL_THREADS, 0).factory());
    private final Path podResourcesSocket;
    // confined to the thread calling deviceAllocations
    private io.grpc.ManagedChannel podResources;
    private Object podResourcesFile;

    /**
     * @param serviceSocket      {@code <plugins>/gpu.nvidia.com/dra.sock}
     * @param registrationSocket {@code <plugins_registry>/gpu.nvidia.com-reg.sock}
     * @param podResourcesSocket {@code /var/lib/kubelet/pod-resources/kubelet.sock}
     */
    public GrpcDraKubelet(Path serviceSocket, Path registrationSocket, Path podResourcesSocket) {
        this.serviceSocket = serviceSocket.toAbsolutePath();
        this.registrationSocket = registrationSocket.toAbsolutePath();
        this.podResourcesSocket = podResourcesSocket.toAbsolutePath();
    }

    @Override
    public AllocationLedger.KubeletAllocations deviceAllocations(Instant listedAt) throws IOException {
        Object file;
        try {
            java.nio.file.attribute.BasicFileAttributes attributes = Files.readAttributes(podResourcesSocket,
                    java.nio.file.attribute.BasicFileAttributes.class);
            file = List.of(java.util.Objects.requireNonNullElse(attributes.fileKey(), "no-key"), attributes.creationTime());
        } catch (IOException e) {
            closePodResources();
            throw new IOException("the kubelet's PodResources socket " + podResourcesSocket + " is not there");
        }
        if (podResources == null || !file.equals(podResourcesFile)) {
            closePodResources();
            podResources = transport.dial(podResourcesSocket);
            podResourcesFile = file;
        }
        ListPodResourcesResponse response;
        try {
            response = PodResourcesListerGrpc.newBlockingStub(podResources).withDeadlineAfter(2, TimeUnit.SECONDS)
                    .list(ListPodResourcesRequest.getDefaultInstance());
        } catch (StatusRuntimeException e) {
            closePodResources();
            throw new IOException("PodResources List on " + podResourcesSocket + " failed: " + e.getStatus().getCode()
                    + (e.getStatus().getDescription() == null ? "" : " " + e.getStatus().getDescription()));
        }
        List<AllocationLedger.KubeletAllocations.Allocation> allocations = new ArrayList<>();
        for (PodResources pod : response.getPodResourcesList()) {
            AllocationLedger.KubeletAllocations.Pod owner = new AllocationLedger.KubeletAllocations.Pod(pod.getNamespace(),
                    pod.getName(), "");
            for (ContainerResources container : pod.getContainersList()) {
                for (ContainerDevices devices : container.getDevicesList()) {
                    allocations.add(new AllocationLedger.KubeletAllocations.Allocation(devices.getResourceName(),
                            devices.getDeviceIdsList(), owner, container.getName()));
                }
            }
        }
        return new AllocationLedger.KubeletAllocations(listedAt, AllocationLedger.Source.POD_RESOURCES, allocations);
    }

    private void closePodResources() {
        if (podResources != null) {
            UnixSocketTransport.close(podResources);
            podResources = null;
            podResourcesFile = null;
        }
    }

    @Override
    public Endpoint serve(ClaimPreparer claims, RegistrationListener registrations) throws IOException {
        DraPluginService v1 = new DraPluginService(claims);
        Server service = transport.serve(serviceSocket, calls, List.of(v1, new DraPluginV1beta1Service(v1)));
        BindableService registration = new PluginRegistrationService(DraNames.DRIVER, serviceSocket.toString(), registrations);
        try {
            Server registrar = transport.serve(registrationSocket, null, List.of(registration));
            return new Served(service, registrar, registration);
        } catch (IOException e) {
            UnixSocketTransport.stop(service, serviceSocket);
            throw e;
        }
    }

    @Override
    public void close() {
        closePodResources();
        calls.shutdownNow();
        transport.close();
    }

    private final class Served implements Endpoint {
        private final Server service;
        private final BindableService registration;
        private Server registrar;

        Served(Server service, Server registrar, BindableService registration) {
            this.service = service;
            this.registrar = registrar;
            this.registration = registration;
        }

        @Override
        public boolean serving() {
            return service != null && !service.isShutdown() && Files.exists(serviceSocket)
                    && registrar != null && !registrar.isShutdown() && Files.exists(registrationSocket);
        }

        @Override
        public void register() throws IOException {
            if (registrar != null) {
                UnixSocketTransport.stop(registrar, registrationSocket);
                registrar = null;
            }
            registrar = transport.serve(registrationSocket, null, List.of(registration));
        }

        @Override
        public void stop() {
            if (registrar != null) {
                UnixSocketTransport.stop(registrar, registrationSocket);
                registrar = null;
            }
            if (!service.isShutdown()) {
                UnixSocketTransport.stop(service, serviceSocket);
            }
        }
    }
}
