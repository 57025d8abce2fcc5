package dev.kgpu.plugin.app;

import dev.kgpu.agent.Backoff;
import dev.kgpu.plugin.deviceplugin.grpc.GrpcKubelet;
import dev.kgpu.plugin.dra.DraDriver;
import dev.kgpu.plugin.dra.DraSettings;
import dev.kgpu.plugin.dra.grpc.GrpcDraKubelet;
import dev.kgpu.plugin.dra.kubernetes.KubernetesClaims;
import dev.kgpu.plugin.dra.kubernetes.KubernetesResourceSlices;
import dev.kgpu.plugin.lifecycle.Kubelet;
import dev.kgpu.plugin.lifecycle.PluginMetrics;
import dev.kgpu.plugin.settings.PluginSettings;
import io.fabric8.kubernetes.client.KubernetesClient;

/** The adapters the plugin runs with, put together once, here, for the app and for the in-process tests. */
public final class PluginAdapters {

    private PluginAdapters() {
    }

    /** The kubelet's device-plugin API over gRPC, or none when {@code KGPU_KUBELET_APIS} leaves it out. */
    public static Kubelet kubelet(PluginSettings settings, PluginMetrics metrics) {
        return settings.devicePlugin() ? new GrpcKubelet(settings.socketDirectory(), settings.kubeletSocket(), metrics)
                : Kubelet.none();
    }

    /** The DRA driver over the kubelet's gRPC sockets and the Kubernetes API behind {@code client}. */
    public static DraDriver draDriver(DraSettings settings, KubernetesClient client, PluginMetrics metrics, Backoff.Policy retries) {
        return new DraDriver(settings, new GrpcDraKubelet(settings.serviceSocket(), settings.registrationSocket()),
                new KubernetesClaims(client), new KubernetesResourceSlices(client), metrics, retries);
    }
}
