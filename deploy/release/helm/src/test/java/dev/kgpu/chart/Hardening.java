package dev.kgpu.chart;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * kgpu's rules for its pods, beyond what Kubernetes requires: every container has the runtime's default seccomp
 * profile, no capabilities, no privilege escalation and a read-only root filesystem unless it is privileged, and
 * only the containers {@code privileged} names may be; host paths are mounted read-only except where an agent
 * writes ({@code writable}); every long-running container has startup, liveness and readiness probes; every pod
 * tolerates CriticalAddonsOnly (the MPS control daemon, which serves no HTTP, has no probes); no container runs a shell (the images have none).
 *
 * @param privileged "{@code <DaemonSet>/<container>}" of the containers that may be privileged
 * @param writable   "{@code <DaemonSet>/<container>:<mountPath>}" of the host paths a container may write
 * @param nonRoot    "{@code <DaemonSet>/<container>}" of the containers that must run as a non-root user
 * @param added      "{@code <DaemonSet>/<container>}" of the containers that may add capabilities besides dropping
 *                   ALL, and which: each is an exception whose reason its template states next to it (the plugin's
 *                   {@code SYS_ADMIN} for MPS claims: the NVIDIA driver sets a compute mode only for an administrator).
 *                   Such a container may leave privilege escalation on: the API server refuses
 *                   {@code allowPrivilegeEscalation: false} with {@code CAP_SYS_ADMIN}. It must add exactly these.
 */
record Hardening(Set<String> privileged, Set<String> writable, Set<String> nonRoot, Map<String, Set<String>> added) {

    Hardening(Set<String> privileged, Set<String> writable, Set<String> nonRoot) {
        this(privileged, writable, nonRoot, Map.of());
    }

    /**
     * Main containers that serve no HTTP and so have no probes: the MPS control daemon (as NVIDIA's), which restarts its
     * daemons itself.
     */
    private static final Set<String> UNPROBED = Set.of("mps-control-daemon");
    private static final Set<String> SHELLS = Set.of("sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/env");

    /** Every rule a DaemonSet of {@code all} breaks, one line each. */
    List<String> problems(List<HasMetadata> all) {
        List<String> problems = new ArrayList<>();
        for (DaemonSet daemonSet : all.stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast).toList()) {
            String name = daemonSet.getMetadata().getName();
            PodSpec pod = daemonSet.getSpec().getTemplate().getSpec();
            if (pod.getTolerations().stream().noneMatch(t -> "CriticalAddonsOnly".equals(t.getKey()) && "Exists".equals(t.getOperator()))) {
                problems.add(name + ": no CriticalAddonsOnly toleration");
            }
            Map<String, Volume> volumes = pod.getVolumes().stream().collect(Collectors.toMap(Volume::getName, Function.identity()));
            for (Container container : pod.getInitContainers()) {
                container(name, pod, container, volumes, false, problems);
            }
            for (Container container : pod.getContainers()) {
                container(name, pod, container, volumes, true, problems);
            }
        }
        return problems;
    }

    private void container(String daemonSet, PodSpec pod, Container container, Map<String, Volume> volumes, boolean main,
                           List<String> problems) {
        String id = daemonSet + "/" + container.getName();
        SecurityContext security = Objects.requireNonNullElseGet(container.getSecurityContext(), SecurityContext::new);
        boolean isPrivileged = Boolean.TRUE.equals(security.getPrivileged());
        String seccomp = security.getSeccompProfile() != null ? security.getSeccompProfile().getType()
                : pod.getSecurityContext() != null && pod.getSecurityContext().getSeccompProfile() != null
                ? pod.getSecurityContext().getSeccompProfile().getType() : null;
        if (!"RuntimeDefault".equals(seccomp)) {
            problems.add(id + ": seccompProfile is " + seccomp + ", not RuntimeDefault");
        }
        if (isPrivileged) {
            if (!privileged.contains(id)) {
                problems.add(id + ": privileged, which only " + privileged + " may be");
            }
        } else {
            Set<String> mayAdd = added.getOrDefault(id, Set.of());
            if (!Boolean.FALSE.equals(security.getAllowPrivilegeEscalation()) && mayAdd.isEmpty()) {
                problems.add(id + ": allowPrivilegeEscalation is not false");
            }
            if (security.getCapabilities() == null || !security.getCapabilities().getDrop().contains("ALL")
                    || !Set.copyOf(security.getCapabilities().getAdd()).equals(mayAdd)) {
                problems.add(id + ": capabilities are not dropped (drop [ALL], add "
                        + (mayAdd.isEmpty() ? "nothing" : "exactly " + mayAdd) + ")");
            }
            if (!Boolean.TRUE.equals(security.getReadOnlyRootFilesystem())) {
                problems.add(id + ": the root filesystem is not read-only");
            }
        }
        if (privileged.contains(id) && !isPrivileged) {
            problems.add(id + ": expected privileged, and it is not (the test's expectation is out of date)");
        }
        boolean runsAsNonRoot = Boolean.TRUE.equals(security.getRunAsNonRoot()) && security.getRunAsUser() != null
                && security.getRunAsUser() != 0;
        if (nonRoot.contains(id) != runsAsNonRoot) {
            problems.add(id + (runsAsNonRoot ? ": runs as non-root, where the test expects root"
                    : ": does not run as a non-root user (runAsNonRoot and a runAsUser other than 0)"));
        }
        if (main && !UNPROBED.contains(id.substring(id.indexOf('/') + 1)) && (container.getStartupProbe() == null || container.getLivenessProbe() == null
                || container.getReadinessProbe() == null)) {
            problems.add(id + ": lacks a startup, liveness or readiness probe");
        }
        List<String> commands = new ArrayList<>();
        commands.addAll(container.getCommand());
        if (container.getLifecycle() != null && container.getLifecycle().getPreStop() != null
                && container.getLifecycle().getPreStop().getExec() != null) {
            commands.addAll(container.getLifecycle().getPreStop().getExec().getCommand());
        }
        Stream.concat(commands.stream(), container.getArgs().stream()).filter(SHELLS::contains).findFirst()
                .ifPresent(shell -> problems.add(id + ": runs " + shell + ", which no kgpu image has"));
        for (VolumeMount mount : container.getVolumeMounts()) {
            Volume volume = volumes.get(mount.getName());
            if (volume != null && volume.getHostPath() != null && !Boolean.TRUE.equals(mount.getReadOnly())
                    && !writable.contains(id + ":" + mount.getMountPath())) {
                problems.add(id + ": mounts the host's " + volume.getHostPath().getPath() + " at " + mount.getMountPath()
                        + " read-write, where it writes nothing");
            }
        }
    }
}
