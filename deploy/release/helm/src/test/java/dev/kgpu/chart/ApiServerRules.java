package dev.kgpu.chart;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The checks a Kubernetes API server (pkg/apis/core/validation, apps and rbac validation) and the kubelet make
 * that the OpenAPI schemas cannot express, for the kinds kgpu ships, plus the references between objects of one
 * install that nothing checks before the pods fail: a probe's named port, a volume mount's volume, a Service's
 * selector and target port, a binding's role and service account.
 */
final class ApiServerRules {

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
    private static final Pattern LABEL_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern PORT_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern ENV_NAME = Pattern.compile("[-._a-zA-Z][-._a-zA-Z0-9]*");
    private static final Set<String> HOST_PATH_TYPES = Set.of("", "DirectoryOrCreate", "Directory", "FileOrCreate", "File",
            "Socket", "CharDevice", "BlockDevice");
    private static final Set<String> PROPAGATIONS = Set.of("None", "HostToContainer", "Bidirectional");
    private static final Set<String> VERBS = Set.of("get", "list", "watch", "create", "update", "patch", "delete",
            "deletecollection", "*", "use", "bind", "escalate", "impersonate", "approve", "sign");
    private static final Set<String> FIELD_PATHS = Set.of("metadata.name", "metadata.namespace", "metadata.uid",
            "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.podIP", "status.podIPs", "status.hostIPs");

    private ApiServerRules() {
    }

    /** Every rule an object of {@code all} breaks, one line each. */
    static List<String> problems(List<HasMetadata> all) {
        List<String> problems = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (HasMetadata object : all) {
            String id = Manifests.id(object);
            if (!seen.add(object.getKind() + "/" + object.getMetadata().getNamespace() + "/" + object.getMetadata().getName())) {
                problems.add(id + " is rendered twice");
            }
            metadata(object, problems);
            switch (object) {
                case DaemonSet daemonSet -> daemonSet(daemonSet, all, problems);
                case Service service -> service(service, all, problems);
                case ServiceMonitor monitor -> serviceMonitor(monitor, all, problems);
                case RoleBinding binding -> binding(id, binding.getRoleRef(), binding.getSubjects(), all, problems);
                case ClusterRoleBinding binding -> binding(id, binding.getRoleRef(), binding.getSubjects(), all, problems);
                case Role role -> rules(id, role.getRules(), problems);
                case ClusterRole role -> rules(id, role.getRules(), problems);
                case ValidatingAdmissionPolicyBinding binding -> {
                    if (all.stream().noneMatch(o -> o instanceof ValidatingAdmissionPolicy
                            && o.getMetadata().getName().equals(binding.getSpec().getPolicyName()))) {
                        problems.add(id + ": policyName " + binding.getSpec().getPolicyName() + " is not rendered");
                    }
                }
                default -> {
                }
            }
        }
        return problems;
    }

    private static void metadata(HasMetadata object, List<String> problems) {
        String id = Manifests.id(object);
        String name = object.getMetadata().getName();
        if (name == null || name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
            problems.add(id + ": metadata.name was '" + name + "' but it must be a DNS-1123 subdomain");
        }
        labels(id + " metadata.labels", object.getMetadata().getLabels(), problems);
    }

    private static void labels(String where, Map<String, String> labels, List<String> problems) {
        if (labels == null) {
            return;
        }
        labels.forEach((key, value) -> {
            String name = key.contains("/") ? key.substring(key.indexOf('/') + 1) : key;
            String prefix = key.contains("/") ? key.substring(0, key.indexOf('/')) : "";
            if (name.length() > 63 || !LABEL_NAME.matcher(name).matches()
                    || (!prefix.isEmpty() && !DNS_SUBDOMAIN.matcher(prefix).matches())) {
                problems.add(where + ": key '" + key + "' is not a valid label key");
            }
            if (value == null || value.length() > 63 || !LABEL_VALUE.matcher(value).matches()) {
                problems.add(where + ": " + key + " was '" + value + "' but a label value must be at most 63 characters of [-A-Za-z0-9_.]");
            }
        });
    }

    private static void daemonSet(DaemonSet daemonSet, List<HasMetadata> all, List<String> problems) {
        String id = Manifests.id(daemonSet);
        var template = daemonSet.getSpec().getTemplate();
        Map<String, String> selector = daemonSet.getSpec().getSelector().getMatchLabels();
        Map<String, String> podLabels = template.getMetadata().getLabels();
        labels(id + " pod labels", podLabels, problems);
        if (selector == null || selector.isEmpty() || podLabels == null || !podLabels.entrySet().containsAll(selector.entrySet())) {
            problems.add(id + ": spec.selector " + selector + " does not select the pod template's labels " + podLabels);
        }
        PodSpec pod = template.getSpec();
        if (pod.getRestartPolicy() != null && !pod.getRestartPolicy().equals("Always")) {
            problems.add(id + ": a DaemonSet's pods must have restartPolicy Always, not " + pod.getRestartPolicy());
        }
        String account = pod.getServiceAccountName();
        if (account != null && all.stream().noneMatch(o -> o instanceof ServiceAccount
                && o.getMetadata().getName().equals(account)
                && Objects.equals(o.getMetadata().getNamespace(), daemonSet.getMetadata().getNamespace()))) {
            problems.add(id + ": serviceAccountName " + account + " is not rendered in its namespace");
        }
        Set<String> volumes = new HashSet<>();
        for (Volume volume : pod.getVolumes()) {
            if (!volumes.add(volume.getName()) || !DNS_LABEL.matcher(volume.getName()).matches()) {
                problems.add(id + ": volume name '" + volume.getName() + "' is repeated or not a DNS-1123 label");
            }
            if (volume.getHostPath() != null && !HOST_PATH_TYPES.contains(Objects.requireNonNullElse(volume.getHostPath().getType(), ""))) {
                problems.add(id + ": volume " + volume.getName() + " has hostPath type '" + volume.getHostPath().getType() + "'");
            }
            if (volume.getConfigMap() != null && all.stream().noneMatch(o -> o.getKind().equals("ConfigMap")
                    && o.getMetadata().getName().equals(volume.getConfigMap().getName()))) {
                problems.add(id + ": volume " + volume.getName() + " names ConfigMap " + volume.getConfigMap().getName()
                        + ", which is not rendered");
            }
        }
        Set<String> names = new HashSet<>();
        List<Container> containers = Stream.concat(pod.getInitContainers().stream(), pod.getContainers().stream()).toList();
        for (Container container : containers) {
            String where = id + " container " + container.getName();
            if (!names.add(container.getName()) || !DNS_LABEL.matcher(container.getName()).matches()) {
                problems.add(where + ": the name is repeated or not a DNS-1123 label");
            }
            container(where, container, volumes, problems);
        }
        for (Container init : pod.getInitContainers()) {
            if (init.getReadinessProbe() != null || init.getLivenessProbe() != null || init.getStartupProbe() != null) {
                problems.add(id + " init container " + init.getName() + ": init containers may not have probes");
            }
        }
    }

    private static void container(String where, Container container, Set<String> volumes, List<String> problems) {
        if (container.getImage() == null || container.getImage().isBlank()) {
            problems.add(where + ": no image");
        }
        Set<String> ports = new HashSet<>();
        for (ContainerPort port : container.getPorts()) {
            if (port.getContainerPort() == null || port.getContainerPort() < 1 || port.getContainerPort() > 65535) {
                problems.add(where + ": containerPort " + port.getContainerPort() + " is not 1-65535");
            }
            if (port.getName() != null && (port.getName().length() > 15 || !PORT_NAME.matcher(port.getName()).matches()
                    || !ports.add(port.getName()))) {
                problems.add(where + ": port name '" + port.getName() + "' is repeated or not an IANA service name");
            }
        }
        for (Probe probe : Stream.of(container.getStartupProbe(), container.getLivenessProbe(), container.getReadinessProbe())
                .filter(Objects::nonNull).toList()) {
            HTTPGetAction get = probe.getHttpGet();
            if (get != null) {
                IntOrString port = get.getPort();
                if (port.getStrVal() != null && !ports.contains(port.getStrVal())) {
                    problems.add(where + ": a probe names port '" + port.getStrVal() + "', which the container does not declare");
                }
                if (get.getPath() == null || !get.getPath().startsWith("/")) {
                    problems.add(where + ": a probe's path '" + get.getPath() + "' does not start with /");
                }
            }
        }
        Set<String> envs = new HashSet<>();
        for (EnvVar env : container.getEnv()) {
            if (!ENV_NAME.matcher(env.getName()).matches() || !envs.add(env.getName())) {
                problems.add(where + ": environment variable '" + env.getName() + "' is repeated or not a valid name");
            }
            if (env.getValue() != null && env.getValueFrom() != null) {
                problems.add(where + ": " + env.getName() + " has both value and valueFrom");
            }
            if (env.getValueFrom() != null && env.getValueFrom().getFieldRef() != null
                    && !FIELD_PATHS.contains(env.getValueFrom().getFieldRef().getFieldPath())) {
                problems.add(where + ": " + env.getName() + " reads an unsupported fieldPath "
                        + env.getValueFrom().getFieldRef().getFieldPath());
            }
        }
        SecurityContext security = container.getSecurityContext();
        boolean privileged = security != null && Boolean.TRUE.equals(security.getPrivileged());
        if (privileged && Boolean.FALSE.equals(security.getAllowPrivilegeEscalation())) {
            problems.add(where + ": cannot set allowPrivilegeEscalation to false and privileged to true (API server)");
        }
        if (security != null && Boolean.FALSE.equals(security.getAllowPrivilegeEscalation()) && security.getCapabilities() != null
                && security.getCapabilities().getAdd().contains("SYS_ADMIN")) {
            problems.add(where + ": cannot set allowPrivilegeEscalation to false and capabilities.add CAP_SYS_ADMIN (API server)");
        }
        Set<String> paths = new HashSet<>();
        for (VolumeMount mount : container.getVolumeMounts()) {
            if (!volumes.contains(mount.getName())) {
                problems.add(where + ": mounts volume " + mount.getName() + ", which the pod does not have");
            }
            if (!paths.add(mount.getMountPath()) || !mount.getMountPath().startsWith("/")) {
                problems.add(where + ": mountPath " + mount.getMountPath() + " is repeated or not absolute");
            }
            String propagation = mount.getMountPropagation();
            if (propagation != null && !PROPAGATIONS.contains(propagation)) {
                problems.add(where + ": mountPropagation '" + propagation + "' is not None, HostToContainer or Bidirectional");
            }
            if ("Bidirectional".equals(propagation) && !privileged) {
                problems.add(where + ": mount " + mount.getName()
                        + " has mountPropagation Bidirectional, which the API server allows only in privileged containers");
            }
        }
    }

    private static void service(Service service, List<HasMetadata> all, List<String> problems) {
        String id = Manifests.id(service);
        Map<String, String> selector = service.getSpec().getSelector();
        List<DaemonSet> selected = all.stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast)
                .filter(d -> Objects.equals(d.getMetadata().getNamespace(), service.getMetadata().getNamespace()))
                .filter(d -> selector != null && d.getSpec().getTemplate().getMetadata().getLabels().entrySet()
                        .containsAll(selector.entrySet()))
                .toList();
        if (selected.isEmpty()) {
            problems.add(id + ": its selector " + selector + " selects no rendered pods");
        }
        Set<String> names = new HashSet<>();
        for (ServicePort port : service.getSpec().getPorts()) {
            if (port.getName() != null && !names.add(port.getName())) {
                problems.add(id + ": port name " + port.getName() + " is repeated");
            }
            IntOrString target = port.getTargetPort();
            if (target != null && target.getStrVal() != null && selected.stream().noneMatch(d -> d.getSpec().getTemplate()
                    .getSpec().getContainers().stream().flatMap(c -> c.getPorts().stream())
                    .anyMatch(p -> target.getStrVal().equals(p.getName())))) {
                problems.add(id + ": targetPort " + target.getStrVal() + " is no port of the pods it selects");
            }
        }
    }

    private static void serviceMonitor(ServiceMonitor monitor, List<HasMetadata> all, List<String> problems) {
        String id = Manifests.id(monitor);
        Map<String, String> selector = monitor.getSpec().getSelector().getMatchLabels();
        List<Service> services = all.stream().filter(Service.class::isInstance).map(Service.class::cast)
                .filter(s -> s.getMetadata().getLabels() != null && selector != null
                        && s.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
                .toList();
        if (services.isEmpty()) {
            problems.add(id + ": its selector " + selector + " selects no rendered Service");
        }
        monitor.getSpec().getEndpoints().forEach(endpoint -> {
            if (services.stream().noneMatch(s -> s.getSpec().getPorts().stream().anyMatch(p -> endpoint.getPort().equals(p.getName())))) {
                problems.add(id + ": endpoint port " + endpoint.getPort() + " is no port of the Services it selects");
            }
        });
    }

    private static void binding(String id, RoleRef role, List<Subject> subjects, List<HasMetadata> all, List<String> problems) {
        if (all.stream().noneMatch(o -> o.getKind().equals(role.getKind()) && o.getMetadata().getName().equals(role.getName()))) {
            problems.add(id + ": roleRef " + role.getKind() + "/" + role.getName() + " is not rendered");
        }
        if (!"rbac.authorization.k8s.io".equals(role.getApiGroup())) {
            problems.add(id + ": roleRef.apiGroup must be rbac.authorization.k8s.io");
        }
        for (Subject subject : subjects) {
            if (subject.getKind().equals("ServiceAccount") && all.stream().noneMatch(o -> o instanceof ServiceAccount
                    && o.getMetadata().getName().equals(subject.getName())
                    && Objects.equals(o.getMetadata().getNamespace(), subject.getNamespace()))) {
                problems.add(id + ": subject ServiceAccount " + subject.getNamespace() + "/" + subject.getName() + " is not rendered");
            }
        }
    }

    private static void rules(String id, List<PolicyRule> rules, List<String> problems) {
        for (PolicyRule rule : rules) {
            if (rule.getVerbs().isEmpty() || !VERBS.containsAll(rule.getVerbs())) {
                problems.add(id + ": verbs " + rule.getVerbs() + " are not Kubernetes verbs");
            }
            if (rule.getResources().isEmpty() && rule.getNonResourceURLs().isEmpty()) {
                problems.add(id + ": a rule names no resources");
            }
        }
    }
}
