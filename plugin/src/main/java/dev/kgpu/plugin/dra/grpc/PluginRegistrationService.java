package dev.kgpu.plugin.dra.grpc;

import dev.kgpu.kubelet.pluginregistration.v1.InfoRequest;
import dev.kgpu.kubelet.pluginregistration.v1.PluginInfo;
import dev.kgpu.kubelet.pluginregistration.v1.RegistrationGrpc;
import dev.kgpu.kubelet.pluginregistration.v1.RegistrationStatus;
import dev.kgpu.kubelet.pluginregistration.v1.RegistrationStatusResponse;
import dev.kgpu.plugin.dra.DraKubelet;
import io.grpc.stub.StreamObserver;

import java.util.List;

/**
 * The kubelet plugin watcher's {@code /pluginregistration.Registration} service, served on the driver's socket in
 * {@code plugins_registry}: {@code GetInfo} names a {@code DRAPlugin}, the driver, its DRA socket and the DRA services
 * it serves; {@code NotifyRegistrationStatus} hands the kubelet's verdict on. Handlers never block.
 */
final class PluginRegistrationService extends RegistrationGrpc.RegistrationImplBase {

    /** The plugin type the kubelet's DRA handler takes. */
    static final String DRA_PLUGIN = "DRAPlugin";
    /** The DRA services served, newest first, as the kubelet looks them up in {@code supported_versions}. */
    static final List<String> SERVICES = List.of("v1.DRAPlugin", "v1beta1.DRAPlugin");

    private final PluginInfo info;
    private final DraKubelet.RegistrationListener listener;

    PluginRegistrationService(String driver, String endpoint, DraKubelet.RegistrationListener listener) {
        this.info = PluginInfo.newBuilder().setType(DRA_PLUGIN).setName(driver).setEndpoint(endpoint)
                .addAllSupportedVersions(SERVICES).build();
        this.listener = listener;
    }

    @Override
    public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
        response.onNext(info);
        response.onCompleted();
    }

    @Override
    public void notifyRegistrationStatus(RegistrationStatus request, StreamObserver<RegistrationStatusResponse> response) {
        listener.registrationStatus(request.getPluginRegistered(), request.getError());
        response.onNext(RegistrationStatusResponse.getDefaultInstance());
        response.onCompleted();
    }
}
