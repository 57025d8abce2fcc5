package dev.kgpu.sim.kubelet;

import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Device;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Empty;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.RegisterRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.RegistrationGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A device plugin that only does what a test tells it: serves a fixed device list, answers
 * GetPreferredAllocation with the available devices in reverse, and records Allocate calls. It checks the
 * simulator, not the real plugin.
 */
final class ScriptedDevicePlugin extends DevicePluginGrpc.DevicePluginImplBase implements AutoCloseable {

    private final UnixSocketTransport transport = new UnixSocketTransport("scripted-plugin", 1);
    private final Path socket;
    private final List<ServerCallStreamObserver<ListAndWatchResponse>> watchers = new CopyOnWriteArrayList<>();
    final List<List<String>> allocations = new CopyOnWriteArrayList<>();
    final List<PreferredAllocationRequest> preferredRequests = new CopyOnWriteArrayList<>();
    private volatile List<Device> devices;
    private Server server;

    ScriptedDevicePlugin(Path socket, List<String> ids) {
        this.socket = socket;
        this.devices = ids.stream().map(id -> device(id, true)).toList();
    }

    static Device device(String id, boolean healthy) {
        return Device.newBuilder().setID(id).setHealth(healthy ? "Healthy" : "Unhealthy").build();
    }

    ScriptedDevicePlugin serve() throws IOException {
        server = transport.serve(socket, null, List.of(this));
        return this;
    }

    void register(Path kubeletSocket, String version, String resourceName) {
        ManagedChannel channel = transport.dial(kubeletSocket);
        try {
            RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(15, TimeUnit.SECONDS)
                    .register(RegisterRequest.newBuilder().setVersion(version).setResourceName(resourceName)
                            .setEndpoint(socket.getFileName().toString())
                            .setOptions(DevicePluginOptions.newBuilder().setGetPreferredAllocationAvailable(true))
                            .build());
        } finally {
            UnixSocketTransport.close(channel);
        }
    }

    void setDevices(List<Device> next) {
        devices = List.copyOf(next);
        watchers.forEach(w -> w.onNext(ListAndWatchResponse.newBuilder().addAllDevices(devices).build()));
    }

    /** Ends every ListAndWatch stream, as a crashing plugin would. */
    void endStreams() {
        watchers.forEach(StreamObserver::onCompleted);
        watchers.clear();
    }

    @Override
    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> response) {
        response.onNext(DevicePluginOptions.newBuilder().setGetPreferredAllocationAvailable(true).build());
        response.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
        ServerCallStreamObserver<ListAndWatchResponse> observer = (ServerCallStreamObserver<ListAndWatchResponse>) response;
        watchers.add(observer);
        observer.setOnCancelHandler(() -> watchers.remove(observer));
        observer.onNext(ListAndWatchResponse.newBuilder().addAllDevices(devices).build());
    }

    @Override
    public void getPreferredAllocation(PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> response) {
        preferredRequests.add(request);
        List<String> available = new ArrayList<>(request.getContainerRequests(0).getAvailableDeviceIDsList());
        java.util.Collections.reverse(available);
        response.onNext(PreferredAllocationResponse.newBuilder().addContainerResponses(
                ContainerPreferredAllocationResponse.newBuilder()
                        .addAllDeviceIDs(available.subList(0, request.getContainerRequests(0).getAllocationSize())))
                .build());
        response.onCompleted();
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> response) {
        List<String> ids = request.getContainerRequests(0).getDevicesIdsList();
        allocations.add(ids);
        response.onNext(AllocateResponse.newBuilder().addContainerResponses(ContainerAllocateResponse.newBuilder()
                .putAllEnvs(Map.of("SCRIPTED_DEVICES", String.join(",", ids)))).build());
        response.onCompleted();
    }

    void stopServing() {
        if (server != null) {
            UnixSocketTransport.stop(server, socket);
            server = null;
        }
    }

    @Override
    public void close() {
        stopServing();
        transport.close();
    }
}
