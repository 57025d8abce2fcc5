package dev.kgpu.sim.pluginwatcher;

import dev.kgpu.sim.dra.DraDrivers;
import io.grpc.StatusRuntimeException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The simulated node's DRA drivers as its kubelet's DRA manager reaches them: the drivers that registered through
 * the kubelet's plugin watcher ({@link PluginWatcher}, plugin's test-jar), called over gRPC on the socket each gave
 * ({@link DraPluginClient}): the real plugin's {@code gpu.nvidia.com}.
 *
 * <p>Thread-safe, as the plugin watcher.
 */
public final class KubeletDraDrivers implements DraDrivers {

    private final PluginWatcher watcher;

    public KubeletDraDrivers(PluginWatcher watcher) {
        this.watcher = watcher;
    }

    @Override
    public Map<String, Prepared> prepare(String driver, List<Claim> claims) {
        DraPluginClient client = registered(driver);
        Map<String, DraClaimResult> answers;
        try {
            answers = client.prepare(claims.stream().map(KubeletDraDrivers::claim).toList());
        } catch (StatusRuntimeException e) {
            throw new DriverException("NodePrepareResources of " + client + " failed: " + e.getStatus(), e);
        }
        Map<String, Prepared> prepared = new LinkedHashMap<>();
        answers.forEach((uid, answer) -> prepared.put(uid, new Prepared(answer.devices().stream()
                .map(d -> new Device(d.requestNames(), d.poolName(), d.deviceName(), d.cdiDeviceIds())).toList(),
                answer.error())));
        return prepared;
    }

    @Override
    public Map<String, Optional<String>> unprepare(String driver, List<Claim> claims) {
        DraPluginClient client = registered(driver);
        try {
            return client.unprepare(claims.stream().map(KubeletDraDrivers::claim).toList());
        } catch (StatusRuntimeException e) {
            throw new DriverException("NodeUnprepareResources of " + client + " failed: " + e.getStatus(), e);
        }
    }

    private DraPluginClient registered(String driver) {
        return watcher.driver(driver).orElseThrow(() -> new DriverException("DRA driver " + driver
                + " is not registered with the kubelet (no registration socket in " + watcher.directory() + ")"));
    }

    private static DraClaim claim(Claim claim) {
        return new DraClaim(claim.namespace(), claim.name(), claim.uid());
    }
}
