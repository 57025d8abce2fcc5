package dev.kgpu.plugin.app;

import dev.kgpu.agent.Backoff;
import dev.kgpu.agent.ExecutablePages;
import dev.kgpu.plugin.deviceplugin.DevicePluginFrontEnd;
import dev.kgpu.plugin.deviceplugin.DevicePluginMetrics;
import dev.kgpu.plugin.deviceplugin.DevicePluginSettings;
import dev.kgpu.plugin.deviceplugin.allocation.DeviceNodes;
import dev.kgpu.plugin.deviceplugin.grpc.GrpcKubelet;
import dev.kgpu.plugin.deviceplugin.resources.ConfiguredResourcePlanner;
import dev.kgpu.plugin.dra.DraDriver;
import dev.kgpu.plugin.dra.DraMetrics;
import dev.kgpu.plugin.dra.DraSettings;
import dev.kgpu.plugin.dra.grpc.GrpcDraKubelet;
import dev.kgpu.plugin.dra.kubernetes.KubernetesClaims;
import dev.kgpu.plugin.dra.kubernetes.KubernetesResourceSlices;
import dev.kgpu.plugin.mps.MpsPaths;
import dev.kgpu.plugin.node.AllocationLedger;
import dev.kgpu.plugin.node.FrontEnd;
import dev.kgpu.plugin.node.ExclusiveLedger;
import dev.kgpu.plugin.settings.PluginSettings;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** The front-ends and their adapters, put together once, here, for the app and for the in-process tests. */
public final class PluginAdapters {

    private PluginAdapters() {
    }

    /**
     * The front-ends {@code settings} ask for, each with where its settings are: the device plugin when
     * {@code KGPU_KUBELET_APIS} lists it, the DRA driver when it lists {@code dra} ({@code kubernetes} is only asked for
     * then).
     */
    public static <M extends DevicePluginMetrics & DraMetrics> List<FrontEnd.Binding<PluginSettings, ?>> frontEnds(
            PluginSettings settings, M metrics, Supplier<KubernetesClient> kubernetes, Backoff.Policy retries) {
        List<FrontEnd.Binding<PluginSettings, ?>> frontEnds = new ArrayList<>();
        // a native plugin unmaps its start-up pages just before it first registers (they stay cached), so it answers the
        // kubelet's first calls at about the resident size it serves with; it pages them out once it serves (PluginWiring)
        Runnable beforeRegistering = () -> ExecutablePages.unmapStartupPages(settings.releaseStartupPages());
        settings.devicePlugin().ifPresent(devicePlugin -> frontEnds.add(FrontEnd.bind(
                devicePlugin(devicePlugin, metrics, beforeRegistering), (PluginSettings s) -> s.devicePlugin().orElseThrow())));
        settings.dra().ifPresent(dra -> frontEnds.add(FrontEnd.bind(draDriver(dra, kubernetes.get(), metrics, retries),
                (PluginSettings s) -> s.dra().orElseThrow())));
        return frontEnds;
    }

    /**
     * Who holds which GPU: recorded when the DRA driver runs beside anything that could hand out the same GPUs; nothing
     * to record when only the device plugin runs (the kubelet keeps its devices apart).
     */
    public static AllocationLedger ledger(PluginSettings settings) {
        return settings.dra().isPresent() ? new ExclusiveLedger() : AllocationLedger.none();
    }

    /**
     * The device-plugin API over the kubelet's gRPC, planned by NVIDIA's rules, on the host's device nodes;
     * {@code beforeRegistering} runs once, just before the first registration.
     */
    public static DevicePluginFrontEnd devicePlugin(DevicePluginSettings settings, DevicePluginMetrics metrics,
            Runnable beforeRegistering) {
        return new DevicePluginFrontEnd(new BeforeFirstRegistration(
                new GrpcKubelet(settings.socketDirectory(), settings.kubeletSocket(), metrics), beforeRegistering),
                metrics, ConfiguredResourcePlanner::new, DeviceNodes.onHost());
    }

    /** The DRA driver over the kubelet's gRPC sockets and the Kubernetes API behind {@code client}. */
    public static DraDriver draDriver(DraSettings settings, KubernetesClient client, DraMetrics metrics, Backoff.Policy retries) {
        return new DraDriver(settings, new GrpcDraKubelet(settings.serviceSocket(), settings.registrationSocket(),
                settings.podResourcesSocket()),
                new KubernetesClaims(client), new KubernetesResourceSlices(client),
                new MpsPaths(settings.mpsRoot())::resourceHolding, metrics, retries);
    }
}
