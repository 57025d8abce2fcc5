package dev.kgpu.sim.dra;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * In-process DRA drivers for tests that play the driver's part: NodePrepareResources reads each claim's allocation
 * from the API server, as a driver does, and answers each of its devices of the driver with NVIDIA's per-claim CDI
 * name {@code k8s.<driver>/claim=<claim uid>-<device>}; it records every call. Only drivers in {@code registered}
 * answer; another is not registered.
 *
 * <p>Thread-safe.
 */
public final class AllocationDrivers implements DraDrivers {

    private final KubernetesClient client;
    private final List<String> registered;
    private final List<String> calls = new CopyOnWriteArrayList<>();

    public AllocationDrivers(KubernetesClient client, List<String> registered) {
        this.client = client;
        this.registered = List.copyOf(registered);
    }

    /** Every call so far: {@code prepare <namespace>/<name>} or {@code unprepare <namespace>/<name>}. */
    public List<String> calls() {
        return List.copyOf(calls);
    }

    @Override
    public Map<String, Prepared> prepare(String driver, List<Claim> claims) {
        check(driver);
        Map<String, Prepared> answers = new LinkedHashMap<>();
        for (Claim claim : claims) {
            calls.add("prepare " + claim.namespace() + "/" + claim.name());
            ResourceClaim found = client.dynamicResourceAllocation().v1().resourceClaims().inNamespace(claim.namespace())
                    .withName(claim.name()).get();
            if (found == null || !claim.uid().equals(found.getMetadata().getUid()) || !PodClaims.allocated(found)) {
                answers.put(claim.uid(), new Prepared(List.of(), Optional.of("claim " + claim.name() + " is not allocated")));
                continue;
            }
            List<Device> devices = new ArrayList<>();
            for (DeviceRequestAllocationResult result : found.getStatus().getAllocation().getDevices().getResults()) {
                if (driver.equals(result.getDriver())) {
                    String request = result.getRequest().contains("/") ? result.getRequest().substring(0, result.getRequest().indexOf('/'))
                            : result.getRequest();
                    devices.add(new Device(List.of(request), result.getPool(), result.getDevice(),
                            List.of("k8s." + driver + "/claim=" + claim.uid() + "-" + result.getDevice())));
                }
            }
            answers.put(claim.uid(), new Prepared(devices, Optional.empty()));
        }
        return answers;
    }

    @Override
    public Map<String, Optional<String>> unprepare(String driver, List<Claim> claims) {
        check(driver);
        Map<String, Optional<String>> answers = new LinkedHashMap<>();
        for (Claim claim : claims) {
            calls.add("unprepare " + claim.namespace() + "/" + claim.name());
            answers.put(claim.uid(), Optional.empty());
        }
        return answers;
    }

    private void check(String driver) {
        if (!registered.contains(driver)) {
            throw new DriverException("DRA driver " + driver + " is not registered");
        }
    }
}
