package dev.kgpu.sim.dra;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;

import java.util.AbstractMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One device of a ResourceSlice, as the scheduler's allocator sees it: its driver, pool and name, and the fabric8
 * {@link Device} with its attributes, capacity and taints. Immutable.
 */
public record SliceDevice(String driver, String pool, Device device) {

    public SliceDevice {
        Objects.requireNonNull(driver, "driver");
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(device, "device");
    }

    /** The device's identity, as an allocation result names it. */
    public record Id(String driver, String pool, String device) {
        @Override
        public String toString() {
            return driver + "/" + pool + "/" + device;
        }
    }

    public Id id() {
        return new Id(driver, pool, device.getName());
    }

    public String name() {
        return device.getName();
    }

    public List<DeviceTaint> taints() {
        return device.getTaints() == null ? List.of() : device.getTaints();
    }

    /**
     * The value of the attribute {@code qualifiedName} ({@code <domain>/<id>}; a name without a domain is the
     * driver's), typed as CEL sees it (Long, Boolean, String, {@link Semver}), or empty when the device lacks it.
     */
    public Optional<Object> attribute(String qualifiedName) {
        int slash = qualifiedName.indexOf('/');
        String domain = slash < 0 ? driver : qualifiedName.substring(0, slash);
        String id = qualifiedName.substring(slash + 1);
        Object domainAttributes = attributes().get(domain);
        return domainAttributes instanceof Map<?, ?> map ? Optional.ofNullable(map.get(id)) : Optional.empty();
    }

    /**
     * The CEL variable {@code device}: {@code driver}, {@code attributes} (domain → id → value; names without a
     * domain are filed under the driver; an unknown domain is an empty map), {@code capacity} (domain → id →
     * {@link CelQuantity}), {@code allowMultipleAllocations}.
     */
    Map<String, Object> celValue() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("driver", driver);
        value.put("attributes", attributes());
        Map<String, Map<String, Object>> capacity = new LinkedHashMap<>();
        if (device.getCapacity() != null) {
            for (Map.Entry<String, DeviceCapacity> entry : device.getCapacity().entrySet()) {
                if (entry.getValue() != null && entry.getValue().getValue() != null) {
                    put(capacity, entry.getKey(), CelQuantity.of(entry.getValue().getValue()));
                }
            }
        }
        value.put("capacity", new Domains(capacity));
        value.put("allowMultipleAllocations", Boolean.TRUE.equals(device.getAllowMultipleAllocations()));
        return value;
    }

    private Domains attributes() {
        Map<String, Map<String, Object>> attributes = new LinkedHashMap<>();
        if (device.getAttributes() != null) {
            for (Map.Entry<String, DeviceAttribute> entry : device.getAttributes().entrySet()) {
                typed(entry.getValue()).ifPresent(v -> put(attributes, entry.getKey(), v));
            }
        }
        return new Domains(attributes);
    }

    private void put(Map<String, Map<String, Object>> domains, String qualifiedName, Object value) {
        int slash = qualifiedName.indexOf('/');
        String domain = slash < 0 ? driver : qualifiedName.substring(0, slash);
        domains.computeIfAbsent(domain, d -> new LinkedHashMap<>()).put(qualifiedName.substring(slash + 1), value);
    }

    /** An attribute's one value; a version that is not semver is left out (the API server rejects it). */
    private static Optional<Object> typed(DeviceAttribute attribute) {
        if (attribute == null) {
            return Optional.empty();
        }
        if (attribute.getInt() != null) {
            return Optional.of(attribute.getInt());
        }
        if (attribute.getBool() != null) {
            return Optional.of(attribute.getBool());
        }
        if (attribute.getString() != null) {
            return Optional.of(attribute.getString());
        }
        if (attribute.getVersion() != null && Semver.isValid(attribute.getVersion())) {
            return Optional.of(Semver.parse(attribute.getVersion()));
        }
        return Optional.empty();
    }

    /** Domain → id → value, where a domain the device does not have is an empty map, as in Kubernetes. */
    private static final class Domains extends AbstractMap<String, Object> {
        private final Map<String, Map<String, Object>> domains;

        Domains(Map<String, Map<String, Object>> domains) {
            this.domains = domains;
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            @SuppressWarnings({"unchecked", "rawtypes"})
            Set<Entry<String, Object>> entries = (Set) domains.entrySet();
            return entries;
        }

        @Override
        public boolean containsKey(Object key) {
            return key instanceof String;
        }

        @Override
        public Object get(Object key) {
            Map<String, Object> domain = domains.get(key);
            return domain == null ? Map.of() : domain;
        }
    }
}
