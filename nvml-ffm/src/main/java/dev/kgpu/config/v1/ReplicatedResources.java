package dev.kgpu.config.v1;

import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code sharing.timeSlicing} or {@code sharing.mps}.
 *
 * <p>Besides NVIDIA's rules (at least one resource, replicas at least 2), kgpu checks what honouring
 * {@code devices} and {@code rename} needs: several entries may share one {@code name} (for per-GPU
 * replica counts) only when each lists its devices explicitly and no device is listed twice; and one
 * advertised name may not gather devices of two different resources.
 *
 * @param renameByDefault            advertise replicas as {@code <name>.shared} unless an entry renames them
 * @param failRequestsGreaterThanOne reject a container asking for more than one replica; the decoder
 *                                   defaults it to {@code false} for time-slicing and {@code true} for MPS
 * @param resources                  the entries, at least one
 */
public record ReplicatedResources(boolean renameByDefault, boolean failRequestsGreaterThanOne, List<ReplicatedResource> resources) {

    public ReplicatedResources {
        resources = List.copyOf(resources);
        if (resources.isEmpty()) {
            throw InvalidConfigException.of("resources", "[]", "must list at least one resource to share");
        }
        List<ValidationFailure> failures = new ArrayList<>();
        Map<ResourceName, List<Integer>> entriesByName = new HashMap<>();
        for (int i = 0; i < resources.size(); i++) {
            entriesByName.computeIfAbsent(resources.get(i).name(), n -> new ArrayList<>()).add(i);
        }
        Map<ResourceName, Integer> sourceOfAdvertised = new HashMap<>();
        Map<String, Integer> claimedDevices = new HashMap<>();
        for (int i = 0; i < resources.size(); i++) {
            ReplicatedResource entry = resources.get(i);
            String here = "resources[" + i + "]";
            List<Integer> sameName = entriesByName.get(entry.name());
            if (sameName.size() > 1 && !(entry.devices() instanceof ReplicatedDevices.DeviceList)) {
                failures.add(new ValidationFailure(here + ".devices", describe(entry.devices()),
                        "must be an explicit list of devices because resources" + sameName + " all share "
                                + entry.name()));
            }
            if (entry.devices() instanceof ReplicatedDevices.DeviceList list) {
                for (DeviceRef device : list.devices()) {
                    Integer claimed = claimedDevices.putIfAbsent(entry.name() + "/" + device.text(), i);
                    if (claimed != null) {
                        failures.add(new ValidationFailure(here + ".devices", device.text(),
                                "must not list a device that resources[" + claimed + "] already shares"));
                    }
                }
            }
            Integer source = sourceOfAdvertised.putIfAbsent(entry.advertisedName(), i);
            if (source != null && !resources.get(source).name().equals(entry.name())) {
                failures.add(new ValidationFailure(here + (entry.rename().isPresent() ? ".rename" : ".name"),
                        entry.advertisedName().value(), "must not advertise devices of " + entry.name()
                                + " under the name that resources[" + source + "] uses for "
                                + resources.get(source).name()));
            }
        }
        if (!failures.isEmpty()) {
            throw new InvalidConfigException(failures);
        }
    }

    /** Whether this block replicates anything (always, since replicas are at least 2 and resources non-empty). */
    public boolean isReplicated() {
        return resources.stream().anyMatch(r -> r.replicas() > 1);
    }

    private static String describe(ReplicatedDevices devices) {
        return switch (devices) {
            case ReplicatedDevices.All all -> "all";
            case ReplicatedDevices.Count count -> Integer.toString(count.count());
            case ReplicatedDevices.DeviceList list -> list.devices().stream().map(DeviceRef::text).toList().toString();
        };
    }
}
