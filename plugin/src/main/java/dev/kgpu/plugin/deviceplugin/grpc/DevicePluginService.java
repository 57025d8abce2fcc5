package dev.kgpu.plugin.deviceplugin.grpc;

import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import dev.kgpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import dev.kgpu.kubelet.deviceplugin.v1beta1.Empty;
import dev.kgpu.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.PreStartContainerRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.PreStartContainerResponse;
import dev.kgpu.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.kgpu.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import dev.kgpu.plugin.deviceplugin.DevicePluginMetrics;
import dev.kgpu.plugin.deviceplugin.ResourceService;
import dev.kgpu.plugin.deviceplugin.allocation.AllocationException;
import dev.kgpu.plugin.deviceplugin.allocation.ContainerAllocation;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

import java.text.MessageFormat;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The kubelet's {@code /v1beta1.DevicePlugin} service for one resource: a thin translation to
 * {@link ResourceService}. A refused request ({@link AllocationException}) becomes INVALID_ARGUMENT with
 * the domain's message (FAILED_PRECONDITION when another holds the devices). Handlers never block, so the server may run them on its I/O thread. Each container's
 * Allocate answer is counted.
 */
final class DevicePluginService extends DevicePluginGrpc.DevicePluginImplBase {

    private static final System.Logger LOG = System.getLogger(DevicePluginService.class.getName());

    static final DevicePluginOptions OPTIONS = DevicePluginOptions.newBuilder()
            .setGetPreferredAllocationAvailable(true)
            .setPreStartRequired(false)
            .build();

    private final ResourceService service;
    private final DevicePluginMetrics metrics;

    DevicePluginService(ResourceService service, DevicePluginMetrics metrics) {
        this.service = service;
        this.metrics = metrics;
    }

    @Override
    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> response) {
        response.onNext(OPTIONS);
        response.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
        ServerCallStreamObserver<ListAndWatchResponse> stream = (ServerCallStreamObserver<ListAndWatchResponse>) response;
        AtomicReference<Runnable> stop = new AtomicReference<>(() -> { });
        stream.setOnCancelHandler(() -> stop.get().run());
        stop.set(service.watch(devices -> {
            try {
                stream.onNext(ProtoMapping.toResponse(devices));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "ListAndWatch of {0} ended: {1}", service.resource().name(), e.getMessage());
            }
        }));
        if (stream.isCancelled()) {
            stop.get().run();
        }
    }

    @Override
    public void getPreferredAllocation(PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> response) {
        try {
            PreferredAllocationResponse.Builder answer = PreferredAllocationResponse.newBuilder();
            for (ContainerPreferredAllocationRequest container : request.getContainerRequestsList()) {
                answer.addContainerResponses(ContainerPreferredAllocationResponse.newBuilder()
                        .addAllDeviceIDs(service.preferredAllocation(container.getAvailableDeviceIDsList(),
                                container.getMustIncludeDeviceIDsList(), container.getAllocationSize())));
            }
            response.onNext(answer.build());
            response.onCompleted();
        } catch (AllocationException e) {
            response.onError(Status.INVALID_ARGUMENT.withDescription(
                    "error getting list of preferred allocation devices: " + e.getMessage()).asRuntimeException());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, MessageFormat.format("GetPreferredAllocation of {0} failed", service.resource().name()), e);
            response.onError(Status.INTERNAL.withDescription(String.valueOf(e.getMessage())).asRuntimeException());
        }
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> response) {
        try {
            AllocateResponse.Builder answer = AllocateResponse.newBuilder();
            for (ContainerAllocateRequest container : request.getContainerRequestsList()) {
                answer.addContainerResponses(ProtoMapping.toResponse(allocate(container)));
            }
            response.onNext(answer.build());
            response.onCompleted();
        } catch (AllocationException e) {
            LOG.log(System.Logger.Level.WARNING, "refused Allocate of {0}: {1}", service.resource().name(), e.getMessage());
            Status status = e instanceof AllocationException.Held ? Status.FAILED_PRECONDITION : Status.INVALID_ARGUMENT;
            response.onError(status.withDescription(e.getMessage()).asRuntimeException());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, MessageFormat.format("Allocate of {0} failed", service.resource().name()), e);
            response.onError(Status.INTERNAL.withDescription(String.valueOf(e.getMessage())).asRuntimeException());
        }
    }

    private ContainerAllocation allocate(ContainerAllocateRequest container) {
        try {
            ContainerAllocation allocation = service.allocate(container.getDevicesIdsList());
            metrics.allocation(service.resource().name(), true);
            return allocation;
        } catch (AllocationException e) {
            metrics.allocation(service.resource().name(), false);
            throw e;
        }
    }

    @Override
    public void preStartContainer(PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> response) {
        response.onNext(PreStartContainerResponse.getDefaultInstance());
        response.onCompleted();
    }
}
