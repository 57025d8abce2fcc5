package dev.kgpu.plugin.app;

import dev.kgpu.plugin.deviceplugin.Kubelet;
import dev.kgpu.plugin.deviceplugin.ResourceService;

import java.io.IOException;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A {@link Kubelet} that runs an action once, just before the first registration goes to the kubelet it wraps, and is
 * that kubelet otherwise. The plugin unmaps its executable's start-up pages there
 * ({@code ExecutablePages.unmapStartupPages}): its start is done, and the kubelet's first calls come next. Only the
 * node's thread calls it, as every {@link Kubelet}.
 */
final class BeforeFirstRegistration implements Kubelet {

    private final Kubelet kubelet;
    private Runnable action;

    BeforeFirstRegistration(Kubelet kubelet, Runnable action) {
        this.kubelet = Objects.requireNonNull(kubelet, "kubelet");
        this.action = Objects.requireNonNull(action, "action");
    }

    @Override
    public Registration register(Endpoint endpoint) {
        Runnable first = action;
        if (first != null) {
            action = null;
            first.run();
        }
        return kubelet.register(endpoint);
    }

    @Override
    public Endpoint serve(ResourceService service) throws IOException {
        return kubelet.serve(service);
    }

    @Override
    public boolean registers() {
        return kubelet.registers();
    }

    @Override
    public void watch(Consumer<Change> changes) throws IOException {
        kubelet.watch(changes);
    }

    @Override
    public void close() {
        kubelet.close();
    }
}
