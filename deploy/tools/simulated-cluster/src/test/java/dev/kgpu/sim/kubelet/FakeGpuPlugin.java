package dev.kgpu.sim.kubelet;

import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Device;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Empty;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.RegisterRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.RegistrationGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A device plugin for the pod runner's tests: a fixed list of GPU UUIDs under {@code nvidia.com/gpu}, Allocate
 * answering with {@code NVIDIA_VISIBLE_DEVICES} as NVIDIA's envvar strategy does. (The real plugin runs in
 * SimulatedNodeIT.)
 */
final class FakeGpuPlugin extends DevicePluginGrpc.DevicePluginImplBase implements AutoCloseable {

    private final UnixSocketTransport transport = new UnixSocketTransport("fake-gpu-plugin", 1);
    private final Path socket;
    private final List<String> ids;
    private final List<StreamObserver<ListAndWatchResponse>> watchers = new CopyOnWriteArrayList<>();
    private Server server;

    FakeGpuPlugin(Path socket, List<String> ids) {
        this.socket = socket;
        this.ids = List.copyOf(ids);
    }

    FakeGpuPlugin serveAndRegister(Path kubeletSocket) throws IOException {
        server = transport.serve(socket, null, List.of(this));
        ManagedChannel channel = transport.dial(kubeletSocket);
        try {
            RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(15, TimeUnit.SECONDS)
                    .register(RegisterRequest.newBuilder().setVersion("v1beta1").setResourceName("nvidia.com/gpu")
                            .setEndpoint(socket.getFileName().toString()).build());
        } finally {
            UnixSocketTransport.close(channel);
        }
        return this;
    }

    @Override
    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> response) {
        response.onNext(DevicePluginOptions.getDefaultInstance());
        response.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
        watchers.add(response);
        response.onNext(ListAndWatchResponse.newBuilder().addAllDevices(ids.stream()
                .map(id -> Device.newBuilder().setID(id).setHealth("Healthy").build()).toList()).build());
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> response) {
        AllocateResponse.Builder answer = AllocateResponse.newBuilder();
        for (ContainerAllocateRequest container : request.getContainerRequestsList()) {
            answer.addContainerResponses(ContainerAllocateResponse.newBuilder()
                    .putEnvs("NVIDIA_VISIBLE_DEVICES", String.join(",", container.getDevicesIdsList())));
        }
        response.onNext(answer.build());
        response.onCompleted();
    }

    @Override
    public void close() {
        watchers.forEach(StreamObserver::onCompleted);
        if (server != null) {
            UnixSocketTransport.stop(server, socket);
        }
        transport.close();
    }
}
