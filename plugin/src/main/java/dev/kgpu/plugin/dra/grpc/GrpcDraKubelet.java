package dev.kgpu.plugin.dra.grpc;

import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.plugin.dra.ClaimPreparer;
import dev.kgpu.plugin.dra.DraKubelet;
import dev.kgpu.plugin.dra.DraNames;
import io.grpc.BindableService;
import io.grpc.Server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The kubelet's DRA plugin API over gRPC on Unix sockets ({@link UnixSocketTransport}): {@code v1.DRAPlugin} and
 * {@code v1beta1.DRAPlugin} on {@code <plugins>/gpu.nvidia.com/dra.sock}, calls run on virtual threads
 * ({@value #CALL_THREADS}); {@code pluginregistration.Registration} on {@code <plugins_registry>/gpu.nvidia.com-reg.sock}.
 * Only the node's thread calls it.
 */
public final class GrpcDraKubelet implements DraKubelet {

    static final String CALL_THREADS = "dra-call-";
    private static final String TRANSPORT_NAME = "dra-grpc";

    private final Path serviceSocket;
    private final Path registrationSocket;
    private final UnixSocketTransport transport = new UnixSocketTransport(TRANSPORT_NAME, 1);
    private final ExecutorService calls = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(CALL_THREADS, 0).factory());

    /**
     * @param serviceSocket      {@code <plugins>/gpu.nvidia.com/dra.sock}
     * @param registrationSocket {@code <plugins_registry>/gpu.nvidia.com-reg.sock}
     */
    public GrpcDraKubelet(Path serviceSocket, Path registrationSocket) {
        this.serviceSocket = serviceSocket.toAbsolutePath();
        this.registrationSocket = registrationSocket.toAbsolutePath();
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
