package dev.kgpu.cdi;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A Container Device Interface spec: the document a runtime (containerd, CRI-O, Podman) reads from
 * {@code /etc/cdi} or {@code /var/run/cdi} to turn a name such as {@code k8s.device-plugin.nvidia.com/gpu=GPU-...}
 * into container edits. Field names and optionality follow the CDI project's {@code specs-go/config.go}; absent
 * optional values are empty, never null.
 *
 * <p>Immutable.
 *
 * @param cdiVersion     e.g. {@code 0.5.0} ({@link CdiVersion#minimumFor} gives the least a spec needs)
 * @param kind           {@code <vendor>/<class>}
 * @param annotations    spec-level annotations (CDI 0.6.0)
 * @param devices        at least one, unique names
 * @param containerEdits applied once per spec whenever one of its devices is injected
 */
public record CdiSpec(String cdiVersion, String kind, Map<String, String> annotations, List<Device> devices,
                      ContainerEdits containerEdits) {

    public CdiSpec {
        Objects.requireNonNull(cdiVersion, "cdiVersion");
        CdiNames.requireKind(kind);
        annotations = Map.copyOf(annotations);
        devices = List.copyOf(devices);
        Objects.requireNonNull(containerEdits, "containerEdits");
        if (devices.isEmpty()) {
            throw new CdiException("devices was '[]' but it must hold at least one device (invalid spec, no devices)");
        }
        LinkedHashSet<String> names = new LinkedHashSet<>();
        for (Device device : devices) {
            if (!names.add(device.name())) {
                throw new CdiException("devices[].name was '" + device.name() + "' but it must be unique in a spec"
                        + " (multiple device \"" + device.name() + "\")");
            }
        }
    }

    /** The vendor part of {@link #kind()}. */
    public String vendor() {
        return kind.substring(0, kind.indexOf('/'));
    }

    /** The class part of {@link #kind()}. */
    public String deviceClass() {
        return kind.substring(kind.indexOf('/') + 1);
    }

    /** The device called {@code name}. */
    public Optional<Device> device(String name) {
        return devices.stream().filter(d -> d.name().equals(name)).findFirst();
    }

    /** The same spec declaring the least {@code cdiVersion} its content needs, as NVIDIA's writers do. */
    public CdiSpec withMinimumVersion() {
        return new CdiSpec(CdiVersion.minimumFor(this), kind, annotations, devices, containerEdits);
    }

    /**
     * One device.
     *
     * @param name           unique in the spec; letters, digits, {@code _ - . :}
     * @param containerEdits must not be empty
     */
    public record Device(String name, Map<String, String> annotations, ContainerEdits containerEdits) {
        public Device {
            CdiNames.requireDeviceName(name);
            annotations = Map.copyOf(annotations);
            Objects.requireNonNull(containerEdits, "containerEdits");
            if (containerEdits.isEmpty()) {
                throw new CdiException("devices[" + name + "].containerEdits was '{}' but it must not be empty"
                        + " (invalid device, empty device edits)");
            }
        }

        public Device(String name, ContainerEdits containerEdits) {
            this(name, Map.of(), containerEdits);
        }
    }

    /**
     * What injecting a device does to a container. Lists keep their order; merging appends.
     *
     * @param env            {@code NAME=VALUE}
     * @param additionalGids JSON key {@code additionalGids}, CDI 0.7.0
     * @param intelRdt       CDI 0.7.0
     * @param netDevices     CDI 1.1.0
     */
    public record ContainerEdits(List<String> env, List<DeviceNode> deviceNodes, List<Hook> hooks, List<Mount> mounts,
                                 Optional<IntelRdt> intelRdt, List<Long> additionalGids, List<NetDevice> netDevices) {

        public static final ContainerEdits EMPTY = new ContainerEdits(List.of(), List.of(), List.of(), List.of(),
                Optional.empty(), List.of(), List.of());

        public ContainerEdits {
            env = List.copyOf(env);
            deviceNodes = List.copyOf(deviceNodes);
            hooks = List.copyOf(hooks);
            mounts = List.copyOf(mounts);
            Objects.requireNonNull(intelRdt, "intelRdt");
            additionalGids = List.copyOf(additionalGids);
            netDevices = List.copyOf(netDevices);
        }

        public ContainerEdits(List<String> env, List<DeviceNode> deviceNodes, List<Hook> hooks, List<Mount> mounts) {
            this(env, deviceNodes, hooks, mounts, Optional.empty(), List.of(), List.of());
        }

        public boolean isEmpty() {
            return env.isEmpty() && deviceNodes.isEmpty() && hooks.isEmpty() && mounts.isEmpty() && intelRdt.isEmpty()
                    && additionalGids.isEmpty() && netDevices.isEmpty();
        }

        /**
         * These edits followed by {@code other}'s, as the CDI library merges edits for injection: lists appended,
         * {@code intelRdt} last writer wins, additional GIDs without repeats.
         */
        public ContainerEdits append(ContainerEdits other) {
            List<Long> gids = new ArrayList<>(additionalGids);
            other.additionalGids.stream().filter(g -> !gids.contains(g)).forEach(gids::add);
            return new ContainerEdits(concat(env, other.env), concat(deviceNodes, other.deviceNodes),
                    concat(hooks, other.hooks), concat(mounts, other.mounts),
                    other.intelRdt.isPresent() ? other.intelRdt : intelRdt, gids, concat(netDevices, other.netDevices));
        }

        private static <T> List<T> concat(List<T> a, List<T> b) {
            List<T> all = new ArrayList<>(a);
            all.addAll(b);
            return all;
        }
    }

    /**
     * A device node to create in the container.
     *
     * @param path        in the container
     * @param hostPath    on the host; empty means {@code path} (CDI 0.5.0)
     * @param type        {@code b}, {@code c}, {@code u} or {@code p}; empty: taken from the host node
     * @param fileMode    the mode bits as Go's {@code os.FileMode} (permission bits; a char device also sets Go's
     *                    device bits, which NVIDIA's writer copies from the host)
     * @param permissions cgroup access, any of {@code r w m}; empty means {@code rwm}
     */
    public record DeviceNode(String path, Optional<String> hostPath, Optional<String> type, OptionalLong major,
                             OptionalLong minor, OptionalLong fileMode, Optional<String> permissions,
                             OptionalLong uid, OptionalLong gid) {
        public DeviceNode {
            CdiNames.requireAbsolute("deviceNodes[].path", path);
            Objects.requireNonNull(hostPath, "hostPath");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(major, "major");
            Objects.requireNonNull(minor, "minor");
            Objects.requireNonNull(fileMode, "fileMode");
            Objects.requireNonNull(permissions, "permissions");
            Objects.requireNonNull(uid, "uid");
            Objects.requireNonNull(gid, "gid");
            if (type.isPresent() && !List.of("b", "c", "u", "p").contains(type.get())) {
                throw new CdiException("deviceNodes[" + path + "].type was '" + type.get() + "' but it must be b, c, u or p");
            }
            if (permissions.isPresent() && !permissions.get().matches("r?w?m?|none")) {
                throw new CdiException("deviceNodes[" + path + "].permissions was '" + permissions.get()
                        + "' but it must be made of r, w and m in that order");
            }
        }

        /** A node the runtime fills in from {@code hostPath} (type, numbers and mode by {@code lstat}). */
        public static DeviceNode of(String path, String hostPath) {
            return new DeviceNode(path, hostPath.isEmpty() ? Optional.empty() : Optional.of(hostPath), Optional.empty(),
                    OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), Optional.empty(),
                    OptionalLong.empty(), OptionalLong.empty());
        }

        /** The host path the runtime reads: {@code hostPath}, else {@code path}. */
        public String effectiveHostPath() {
            return hostPath.orElse(path);
        }

        public DeviceNode withHostPath(String newHostPath) {
            return new DeviceNode(path, Optional.of(newHostPath), type, major, minor, fileMode, permissions, uid, gid);
        }
    }

    /**
     * A bind (or other) mount.
     *
     * @param type CDI 0.4.0
     */
    public record Mount(String hostPath, String containerPath, List<String> options, Optional<String> type) {
        public Mount {
            CdiNames.requireAbsolute("mounts[].hostPath", hostPath);
            CdiNames.requireAbsolute("mounts[].containerPath", containerPath);
            options = List.copyOf(options);
            Objects.requireNonNull(type, "type");
        }

        public Mount(String hostPath, String containerPath, List<String> options) {
            this(hostPath, containerPath, options, Optional.empty());
        }
    }

    /**
     * An OCI hook.
     *
     * @param hookName {@code prestart}, {@code createRuntime}, {@code createContainer}, {@code startContainer},
     *                 {@code poststart} or {@code poststop}
     * @param args     argv, argv[0] included
     * @param timeout  seconds, positive
     */
    public record Hook(String hookName, String path, List<String> args, List<String> env, OptionalInt timeout) {
        public static final List<String> HOOK_NAMES = List.of("prestart", "createRuntime", "createContainer",
                "startContainer", "poststart", "poststop");

        public Hook {
            if (!HOOK_NAMES.contains(hookName)) {
                throw new CdiException("hooks[].hookName was '" + hookName + "' but it must be one of " + HOOK_NAMES);
            }
            CdiNames.requireAbsolute("hooks[].path", path);
            args = List.copyOf(args);
            env = List.copyOf(env);
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isPresent() && timeout.getAsInt() <= 0) {
                throw new CdiException("hooks[" + path + "].timeout was '" + timeout.getAsInt() + "' but it must be positive");
            }
        }
    }

    /** Intel RDT settings (CDI 0.7.0; {@code schemata} and {@code enableMonitoring} 1.1.0). */
    public record IntelRdt(Optional<String> closID, Optional<String> l3CacheSchema, Optional<String> memBwSchema,
                           List<String> schemata, boolean enableMonitoring) {
        public IntelRdt {
            Objects.requireNonNull(closID, "closID");
            Objects.requireNonNull(l3CacheSchema, "l3CacheSchema");
            Objects.requireNonNull(memBwSchema, "memBwSchema");
            schemata = List.copyOf(schemata);
        }
    }

    /** A host network interface moved into the container (CDI 1.1.0). */
    public record NetDevice(String hostInterfaceName, String name) {
        public NetDevice {
            if (hostInterfaceName == null || hostInterfaceName.isEmpty() || name == null || name.isEmpty()) {
                throw new CdiException("netDevices[] was '" + hostInterfaceName + "/" + name
                        + "' but it needs both hostInterfaceName and name");
            }
        }
    }
}
