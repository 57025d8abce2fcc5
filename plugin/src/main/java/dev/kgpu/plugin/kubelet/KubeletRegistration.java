package dev.kgpu.plugin.kubelet;

import dev.kgpu.plugin.kubelet.v1beta1.RegisterRequest;
import dev.kgpu.plugin.kubelet.v1beta1.RegistrationGrpc;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Registers a resource with the kubelet: {@code /v1beta1.Registration/Register} on {@code kubelet.sock}
 * with version {@code v1beta1}, the socket file name as endpoint, and the plugin's options. The kubelet
 * dials the plugin back (up to 10 s) before it answers, so the call's deadline leaves room for that.
 */
public final class KubeletRegistration {

    public static final String VERSION = "v1beta1";
    static final Duration DEADLINE = Duration.ofSeconds(15);

    private final UnixSocketTransport transport;

    public KubeletRegistration(UnixSocketTransport transport) {
        this.transport = transport;
    }

    /** @throws RegistrationException with the kubelet's answer or why it could not be asked */
    public void register(Path kubeletSocket, String resourceName, String endpoint) {
        if (!Files.exists(kubeletSocket)) {
            throw new RegistrationException("kubelet socket " + kubeletSocket + " does not exist (is the kubelet running?)");
        }
        ManagedChannel channel = transport.dial(kubeletSocket);
        try {
            RegistrationGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                    .register(RegisterRequest.newBuilder()
                            .setVersion(VERSION)
                            .setEndpoint(endpoint)
                            .setResourceName(resourceName)
                            .setOptions(DevicePluginService.OPTIONS)
                            .build());
        } catch (StatusRuntimeException e) {
            throw new RegistrationException("the kubelet refused " + resourceName + " on " + kubeletSocket + ": "
                    + e.getStatus().getCode() + " " + e.getStatus().getDescription());
        } finally {
            UnixSocketTransport.close(channel);
        }
    }

    /** Registration failed; the message says why. */
    public static final class RegistrationException extends RuntimeException {
        RegistrationException(String message) {
            super(message);
        }
    }
}
