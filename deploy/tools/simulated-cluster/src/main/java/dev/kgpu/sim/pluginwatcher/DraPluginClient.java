package dev.kgpu.sim.pluginwatcher;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import dev.kgpu.kubelet.UnixSocketTransport;
import dev.kgpu.kubelet.dra.v1.Claim;
import dev.kgpu.kubelet.dra.v1.DRAPluginGrpc;
import dev.kgpu.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.kgpu.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.kgpu.kubelet.dra.v1.NodePrepareResourcesResponse;
import dev.kgpu.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.kgpu.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import io.grpc.ManagedChannel;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The kubelet's client of one registered DRA driver ({@code pkg/kubelet/cm/dra/plugin}): NodePrepareResources and
 * NodeUnprepareResources on the endpoint the driver gave in {@code GetInfo}, through the newest service both sides
 * know ({@code v1.DRAPlugin}, else {@code v1beta1.DRAPlugin}), each call with the kubelet's 45 s deadline. A call that
 * fails as a whole (a gRPC error) throws {@link io.grpc.StatusRuntimeException}, as the kubelet then ignores the
 * response; a claim missing from an answer is reported as an error, as the kubelet treats it.
 *
 * <p>Thread-safety: all methods may be called from any thread.
 */
public final class DraPluginClient implements AutoCloseable {

    /** The kubelet's per-call timeout for DRA calls ({@code defaultClientCallTimeout}). */
    public static final Duration CALL_TIMEOUT = Duration.ofSeconds(45);
    public static final String V1 = "v1.DRAPlugin";
    public static final String V1BETA1 = "v1beta1.DRAPlugin";

    private final String driver;
    private final Path endpoint;
    private final String service;
    private final ManagedChannel channel;

    DraPluginClient(UnixSocketTransport transport, String driver, Path endpoint, String service) {
        this.driver = driver;
        this.endpoint = endpoint;
        this.service = service;
        this.channel = transport.dial(endpoint);
    }

    public String driver() {
        return driver;
    }

    public Path endpoint() {
        return endpoint;
    }

    /** The service the calls go through: {@value #V1} or {@value #V1BETA1}. */
    public String service() {
        return service;
    }

    /** NodePrepareResources for {@code claims}; the answer by claim UID, in the order asked. */
    public Map<String, DraClaimResult> prepare(List<DraClaim> claims) {
        NodePrepareResourcesRequest request = NodePrepareResourcesRequest.newBuilder().addAllClaims(protos(claims)).build();
        NodePrepareResourcesResponse response = service.equals(V1)
                ? DRAPluginGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .nodePrepareResources(request)
                : convert(dev.kgpu.kubelet.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
                        .withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .nodePrepareResources(convert(request, dev.kgpu.kubelet.dra.v1beta1.NodePrepareResourcesRequest.parser())),
                        NodePrepareResourcesResponse.parser());
        Map<String, DraClaimResult> results = new LinkedHashMap<>();
        for (DraClaim claim : claims) {
            NodePrepareResourceResponse answer = response.getClaimsMap().get(claim.uid());
            if (answer == null) {
                results.put(claim.uid(), new DraClaimResult(List.of(), Optional.of("NodePrepareResources skipped claim "
                        + claim.uid() + " of driver " + driver)));
            } else if (!answer.getError().isEmpty()) {
                results.put(claim.uid(), new DraClaimResult(List.of(), Optional.of(answer.getError())));
            } else {
                results.put(claim.uid(), new DraClaimResult(answer.getDevicesList().stream()
                        .map(d -> new DraClaimResult.Device(d.getRequestNamesList(), d.getPoolName(), d.getDeviceName(),
                                d.getCdiDeviceIdsList()))
                        .toList(), Optional.empty()));
            }
        }
        return results;
    }

    /** NodeUnprepareResources for {@code claims}; per claim UID empty, or the error. */
    public Map<String, Optional<String>> unprepare(List<DraClaim> claims) {
        NodeUnprepareResourcesRequest request = NodeUnprepareResourcesRequest.newBuilder().addAllClaims(protos(claims)).build();
        NodeUnprepareResourcesResponse response = service.equals(V1)
                ? DRAPluginGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .nodeUnprepareResources(request)
                : convert(dev.kgpu.kubelet.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
                        .withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .nodeUnprepareResources(convert(request, dev.kgpu.kubelet.dra.v1beta1.NodeUnprepareResourcesRequest.parser())),
                        NodeUnprepareResourcesResponse.parser());
        Map<String, Optional<String>> results = new LinkedHashMap<>();
        for (DraClaim claim : claims) {
            var answer = response.getClaimsMap().get(claim.uid());
            results.put(claim.uid(), answer == null
                    ? Optional.of("NodeUnprepareResources skipped claim " + claim.uid() + " of driver " + driver)
                    : Optional.of(answer.getError()).filter(e -> !e.isEmpty()));
        }
        return results;
    }

    private static List<Claim> protos(List<DraClaim> claims) {
        return claims.stream().map(c -> Claim.newBuilder().setNamespace(c.namespace()).setName(c.name()).setUid(c.uid()).build())
                .toList();
    }

    /** v1 and v1beta1 messages share their wire format (v1beta1 lacks only {@code Device.share_id}). */
    private static <T extends Message> T convert(Message message, Parser<T> parser) {
        try {
            return parser.parseFrom(message.toByteString());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        UnixSocketTransport.close(channel);
    }

    @Override
    public String toString() {
        return driver + " on " + endpoint + " (" + service + ")";
    }
}
