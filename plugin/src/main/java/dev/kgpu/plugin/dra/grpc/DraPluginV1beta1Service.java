package dev.kgpu.plugin.dra.grpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import dev.kgpu.kubelet.dra.v1beta1.DRAPluginGrpc;
import dev.kgpu.kubelet.dra.v1beta1.NodePrepareResourcesRequest;
import dev.kgpu.kubelet.dra.v1beta1.NodePrepareResourcesResponse;
import dev.kgpu.kubelet.dra.v1beta1.NodeUnprepareResourcesRequest;
import dev.kgpu.kubelet.dra.v1beta1.NodeUnprepareResourcesResponse;
import io.grpc.stub.StreamObserver;

/**
 * The kubelet's {@code /k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin} service, which kubelets 1.32 and 1.33 call:
 * {@code v1beta1}'s messages are {@code v1}'s without {@code Device.share_id} (which this driver never sets), field for
 * field, so each call goes through {@link DraPluginService} by re-reading the wire bytes as the other version, as the
 * kubelet helper's conversion wrapper does.
 */
final class DraPluginV1beta1Service extends DRAPluginGrpc.DRAPluginImplBase {

    private final DraPluginService v1;

    DraPluginV1beta1Service(DraPluginService v1) {
        this.v1 = v1;
    }

    @Override
    public void nodePrepareResources(NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
        DraPluginService.answer("NodePrepareResources (v1beta1)", () -> convert(v1.prepare(convert(request,
                dev.kgpu.kubelet.dra.v1.NodePrepareResourcesRequest.parser())), NodePrepareResourcesResponse.parser()),
                response);
    }

    @Override
    public void nodeUnprepareResources(NodeUnprepareResourcesRequest request,
                                       StreamObserver<NodeUnprepareResourcesResponse> response) {
        DraPluginService.answer("NodeUnprepareResources (v1beta1)", () -> convert(v1.unprepare(convert(request,
                dev.kgpu.kubelet.dra.v1.NodeUnprepareResourcesRequest.parser())), NodeUnprepareResourcesResponse.parser()),
                response);
    }

    private static <T extends Message> T convert(Message message, Parser<T> parser) {
        try {
            return parser.parseFrom(message.toByteString());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("v1 and v1beta1 DRA messages share their wire format", e);
        }
    }
}
