package dev.kgpu.plugin.dra.grpc;

import dev.kgpu.kubelet.dra.v1.Claim;
import dev.kgpu.kubelet.dra.v1.DRAPluginGrpc;
import dev.kgpu.kubelet.dra.v1.Device;
import dev.kgpu.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.kgpu.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.kgpu.kubelet.dra.v1.NodePrepareResourcesResponse;
import dev.kgpu.kubelet.dra.v1.NodeUnprepareResourceResponse;
import dev.kgpu.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.kgpu.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import dev.kgpu.plugin.dra.ClaimPreparer;
import dev.kgpu.plugin.dra.ClaimResult;
import dev.kgpu.plugin.dra.PreparedDevice;
import dev.kgpu.plugin.node.ClaimRef;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

import java.text.MessageFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The kubelet's {@code /k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin} service: a thin translation to
 * {@link ClaimPreparer}. Every requested claim gets an entry keyed by its UID; a claim that failed carries its one-line
 * reason in {@code error} (the kubelet shows it and calls again), so the call itself fails only on a bug. An empty
 * request is answered empty (NVIDIA uses it as a liveness probe). Handlers block (API server, files): the server runs
 * them on virtual threads.
 */
final class DraPluginService extends DRAPluginGrpc.DRAPluginImplBase {

    private static final System.Logger LOG = System.getLogger(DraPluginService.class.getName());

    private final ClaimPreparer claims;

    DraPluginService(ClaimPreparer claims) {
        this.claims = claims;
    }

    @Override
    public void nodePrepareResources(NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
        answer("NodePrepareResources", () -> prepare(request), response);
    }

    @Override
    public void nodeUnprepareResources(NodeUnprepareResourcesRequest request,
                                       StreamObserver<NodeUnprepareResourcesResponse> response) {
        answer("NodeUnprepareResources", () -> unprepare(request), response);
    }

    /**
     * Sends {@code answer}'s result, or, when it throws (a bug: claims fail in their entry), logs it and fails the
     * call with {@code INTERNAL} and its message. Both versions of the service answer through it.
     */
    static <T> void answer(String call, Supplier<T> answer, StreamObserver<T> response) {
        T result;
        try {
            result = answer.get();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, MessageFormat.format("{0} failed", call), e);
            response.onError(Status.INTERNAL.withDescription(String.valueOf(e.getMessage())).asRuntimeException());
            return;
        }
        response.onNext(result);
        response.onCompleted();
    }

    NodePrepareResourcesResponse prepare(NodePrepareResourcesRequest request) {
        NodePrepareResourcesResponse.Builder answer = NodePrepareResourcesResponse.newBuilder();
        for (Map.Entry<String, ClaimResult> entry : claims.prepare(refs(request.getClaimsList())).entrySet()) {
            NodePrepareResourceResponse.Builder claim = NodePrepareResourceResponse.newBuilder();
            switch (entry.getValue()) {
                case ClaimResult.Prepared prepared -> prepared.devices().forEach(d -> claim.addDevices(device(d)));
                case ClaimResult.Failed failed -> claim.setError(failed.error());
            }
            answer.putClaims(entry.getKey(), claim.build());
        }
        return answer.build();
    }

    NodeUnprepareResourcesResponse unprepare(NodeUnprepareResourcesRequest request) {
        NodeUnprepareResourcesResponse.Builder answer = NodeUnprepareResourcesResponse.newBuilder();
        for (Map.Entry<String, Optional<String>> entry : claims.unprepare(refs(request.getClaimsList())).entrySet()) {
            NodeUnprepareResourceResponse.Builder claim = NodeUnprepareResourceResponse.newBuilder();
            entry.getValue().ifPresent(claim::setError);
            answer.putClaims(entry.getKey(), claim.build());
        }
        return answer.build();
    }

    private static List<ClaimRef> refs(List<Claim> claims) {
        return claims.stream().map(c -> new ClaimRef(c.getNamespace(), c.getName(), c.getUid())).toList();
    }

    private static Device device(PreparedDevice device) {
        return Device.newBuilder()
                .addAllRequestNames(device.requests())
                .setPoolName(device.pool())
                .setDeviceName(device.device())
                .addAllCdiDeviceIds(device.cdiDeviceIds())
                .build();
    }
}
