package dev.kgpu.chart;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import org.junit.jupiter.api.Test;
import org.springframework.security.crypto.bcrypt.BCrypt;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The Helm chart (deploy/release/helm/kgpu), linted strictly and rendered with Helm's own code (helm-java): with the
 * defaults, with every feature on, with each agent alone and with each label sink. Every rendered object must
 * fit its kind's schema with no unknown field ({@link Manifests}), pass the API server's rules
 * ({@link ApiServerRules}) and kgpu's pod hardening ({@link Hardening}), with privileges, root and writable host
 * paths exactly where a scenario needs them.
 */
class ChartTest {

    static final Path CHART = Path.of(System.getProperty("kgpu.root"), "deploy/release/helm/kgpu");
    static final String VERSION = System.getProperty("kgpu.version");

    @TempDir
    Path work;

    /**
     * A set of values and what it must render: the containers that may be privileged, the host paths written,
     * the containers run as a non-root user.
     */
    record Scenario(String description, String values, Set<String> privileged, Set<String> writable, Set<String> nonRoot,
                    Map<String, Set<String>> added) {
        Scenario(String description, String values, Set<String> privileged, Set<String> writable, Set<String> nonRoot) {
            this(description, values, privileged, writable, nonRoot, Map.of());
        }

        @Override
        public String toString() {
            return description;
        }
    }

    // what the agents write on the host, and who runs as nonroot, with the defaults
    private static final Set<String> WRITES = Set.of(
            "kgpu-plugin/plugin:/var/lib/kubelet/device-plugins",
            "kgpu-mps-control-daemon/mount-shm:/mps",
            "kgpu-mps-control-daemon/mps-control-daemon:/mps",
            "kgpu-mps-control-daemon/mps-control-daemon:/dev/shm",
            "kgpu-validator/driver-validation:/run/nvidia/validations",
            "kgpu-validator/toolkit-validation:/run/nvidia/validations",
            "kgpu-validator/plugin-validation:/run/nvidia/validations",
            "kgpu-validator/cuda-validation:/run/nvidia/validations",
            "kgpu-validator/validator:/run/nvidia/validations");
    // the driver's validation, and mount-shm of the MPS control daemon (a tmpfs, mounted Bidirectional)
    private static final Set<String> DRIVER_VALIDATION = Set.of("kgpu-validator/driver-validation",
            "kgpu-mps-control-daemon/mount-shm");
    private static final Set<String> MPS_WRITES = only(WRITES, "kgpu-mps-control-daemon/");
    // the DRA driver's sockets (registration, service, checkpoint) and each claim's CDI spec
    private static final Set<String> DRA_WRITES = Set.of("kgpu-plugin/plugin:/var/lib/kubelet/plugins_registry",
            "kgpu-plugin/plugin:/var/lib/kubelet/plugins/gpu.nvidia.com", "kgpu-plugin/plugin:/var/run/cdi");
    // draDriver.mps: each MPS claim's daemon folder, and the right to set its GPUs' compute mode
    private static final Set<String> MPS_CLAIM_WRITES = Set.of("kgpu-plugin/plugin:/mps");
    // wherever the mps-control-daemon DaemonSet is rendered (with the device plugin): the right to set its GPUs' compute mode
    private static final Map<String, Set<String>> MPS_DAEMON_CAPABILITIES = Map.of(
            "kgpu-mps-control-daemon/mps-control-daemon", Set.of("SYS_ADMIN"));
    private static final Map<String, Set<String>> MPS_CLAIM_CAPABILITIES = Map.of("kgpu-plugin/plugin", Set.of("SYS_ADMIN"));

    static Stream<Scenario> scenarios() {
        return Stream.of(
                new Scenario("defaults", "{}", DRIVER_VALIDATION, WRITES, Set.of("kgpu-discovery/discovery")),
                new Scenario("every feature on", """
                        image: {registry: registry.example:5000/kgpu/, tag: "1.2.3"}
                        imagePullSecrets: [{name: regcred}]
                        nodeSelector: {nvidia.com/gpu.deploy.kgpu: "true"}
                        javaOpts: "-Xmx96m"
                        validations: {gate: true}
                        migStrategy: mixed
                        failOnInitError: false
                        deviceListStrategy: cdi-cri
                        deviceIDStrategy: index
                        passDeviceSpecs: true
                        nvidiaDriverRoot: /run/nvidia/driver
                        config:
                          map:
                            config.yaml: |
                              version: v1
                              sharing:
                                timeSlicing:
                                  resources:
                                  - name: nvidia.com/gpu
                                    replicas: 4
                        devicePlugin: {health: {disableHealthchecks: "48", enableHealthchecks: "94"}}
                        gfd: {labelSink: file, privileged: true, noTimestamp: true}
                        dcgmExporter:
                          collectors: |
                            DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).
                          serviceMonitor: {enabled: true, additionalLabels: {release: prometheus}}
                        validator: {runtimeClassName: nvidia, withWorkload: true, javaOpts: "-Xlog:gc"}
                        """,
                        union(DRIVER_VALIDATION, Set.of("kgpu-plugin/plugin", "kgpu-discovery/discovery")),
                        union(WRITES, Set.of("kgpu-plugin/plugin:/var/run/cdi",
                                "kgpu-discovery/discovery:/etc/kubernetes/node-feature-discovery/features.d")),
                        Set.of("kgpu-plugin/wait-for-toolkit-ready", "kgpu-discovery/wait-for-toolkit-ready",
                                "kgpu-exporter/wait-for-toolkit-ready")),
                new Scenario("the device plugin alone", "{gfd: {enabled: false}, dcgmExporter: {enabled: false}, validator: {enabled: false}}",
                        Set.of("kgpu-mps-control-daemon/mount-shm"), union(only(WRITES, "kgpu-plugin/"), MPS_WRITES), Set.of()),
                new Scenario("discovery alone", "{devicePlugin: {enabled: false}, dcgmExporter: {enabled: false}, validator: {enabled: false}}",
                        Set.of(), Set.of(), Set.of("kgpu-discovery/discovery")),
                new Scenario("the exporter alone", "{devicePlugin: {enabled: false}, gfd: {enabled: false}, validator: {enabled: false}}",
                        Set.of(), Set.of(), Set.of()),
                new Scenario("the validator alone", "{devicePlugin: {enabled: false}, gfd: {enabled: false}, dcgmExporter: {enabled: false}}",
                        DRIVER_VALIDATION, only(WRITES, "kgpu-validator/"), Set.of()),
                new Scenario("the exporter without pod attribution", "{dcgmExporter: {kubernetes: false}}",
                        DRIVER_VALIDATION, WRITES, Set.of("kgpu-discovery/discovery", "kgpu-exporter/exporter")),
                new Scenario("discovery's node sink", "{gfd: {labelSink: node}}",
                        DRIVER_VALIDATION, WRITES, Set.of("kgpu-discovery/discovery")),
                new Scenario("discovery's nodefeature sink", "{gfd: {labelSink: nodefeature}}",
                        DRIVER_VALIDATION, WRITES, Set.of("kgpu-discovery/discovery")),
                new Scenario("discovery's file sink", "{gfd: {labelSink: file}}", DRIVER_VALIDATION,
                        union(WRITES, Set.of("kgpu-discovery/discovery:/etc/kubernetes/node-feature-discovery/features.d")),
                        Set.of()),
                new Scenario("a CDI device list strategy", "{deviceListStrategy: \"envvar,cdi-annotations\"}", DRIVER_VALIDATION,
                        union(WRITES, Set.of("kgpu-plugin/plugin:/var/run/cdi")), Set.of("kgpu-discovery/discovery")),
                new Scenario("the DRA driver beside the device plugin", "{draDriver: {enabled: true}}", DRIVER_VALIDATION,
                        union(WRITES, DRA_WRITES), Set.of("kgpu-discovery/discovery")),
                new Scenario("the validator through a DRA claim", "{draDriver: {enabled: true}, validator: {pluginDeviceClass: gpu.nvidia.com}}",
                        DRIVER_VALIDATION, union(WRITES, DRA_WRITES), Set.of("kgpu-discovery/discovery")),
                new Scenario("the exporter over TLS", "{dcgmExporter: {tlsServerConfig: {enabled: true,"
                        + " clientAuthType: VerifyClientCertIfGiven}, serviceMonitor: {enabled: true}}}",
                        DRIVER_VALIDATION, WRITES, Set.of("kgpu-discovery/discovery")),
                new Scenario("the exporter with basic auth", "{dcgmExporter: {basicAuth: {users: {prometheus: secret}}}}",
                        DRIVER_VALIDATION, WRITES, Set.of("kgpu-discovery/discovery")),
                new Scenario("the exporter over TLS with basic auth and a Secret of the user's", "{dcgmExporter: {tlsServerConfig:"
                        + " {enabled: true, existingSecret: exporter-cert}, basicAuth: {users: {prometheus: secret}},"
                        + " serviceMonitor: {enabled: true, basicAuth: {username: {name: scrape, key: user},"
                        + " password: {name: scrape, key: password}}}}}",
                        DRIVER_VALIDATION, WRITES, Set.of("kgpu-discovery/discovery")),
                new Scenario("the DRA driver alone", "{devicePlugin: {enabled: false}, draDriver: {enabled: true},"
                        + " gfd: {enabled: false}, dcgmExporter: {enabled: false}, validator: {enabled: false}}",
                        Set.of(), DRA_WRITES, Set.of()),
                new Scenario("MPS claims beside the device plugin", "{draDriver: {enabled: true, mps: {enabled: true}}}",
                        DRIVER_VALIDATION, union(union(WRITES, DRA_WRITES), MPS_CLAIM_WRITES), Set.of("kgpu-discovery/discovery"),
                        MPS_CLAIM_CAPABILITIES),
                new Scenario("MPS claims with the DRA driver alone", "{devicePlugin: {enabled: false}, draDriver: {enabled: true,"
                        + " mps: {enabled: true}}, gfd: {enabled: false}, dcgmExporter: {enabled: false}, validator: {enabled: false}}",
                        Set.of(), union(DRA_WRITES, MPS_CLAIM_WRITES), Set.of(), MPS_CLAIM_CAPABILITIES),
                new Scenario("MPS claims without the DRA driver change nothing", "{draDriver: {mps: {enabled: true}}}",
                        DRIVER_VALIDATION, WRITES, Set.of("kgpu-discovery/discovery")));
    }

    @Test
    void lintsWithoutAWarning() {
        LintResult result = new Helm(CHART).lint().strict().call();
        assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
        assertThat(result.getMessages()).filteredOn(m -> m.contains("[WARNING]") || m.contains("[ERROR]")).isEmpty();
    }

    @Test
    void itsAppVersionIsTheImagesVersion() throws IOException {
        assertThat(Files.readString(CHART.resolve("Chart.yaml"), StandardCharsets.UTF_8))
                .contains("appVersion: \"" + VERSION + "\"");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void rendersObjectsTheApiServerAccepts(Scenario scenario) throws IOException {
        List<HasMetadata> objects = render(scenario.values());

        Map<String, Set<String>> added = new HashMap<>(MPS_DAEMON_CAPABILITIES);
        added.putAll(scenario.added());
        assertThat(Manifests.problems(objects, new Hardening(scenario.privileged(), scenario.writable(), scenario.nonRoot(),
                added)))
                .as(scenario.description()).isEmpty();
    }

    @Test
    void namesTheImagesAfterTheRegistryAndTheChartsVersion() throws IOException {
        assertThat(images(render("{}"))).containsOnly(
                "ghcr.io/kgpu/plugin:" + VERSION, "ghcr.io/kgpu/discovery:" + VERSION,
                "ghcr.io/kgpu/exporter:" + VERSION, "ghcr.io/kgpu/validator:" + VERSION);
        assertThat(images(render("{image: {registry: registry.example:5000/kgpu}, validations: {gate: true}}")))
                .containsOnly("registry.example:5000/kgpu/plugin:" + VERSION, "registry.example:5000/kgpu/discovery:" + VERSION,
                        "registry.example:5000/kgpu/exporter:" + VERSION, "registry.example:5000/kgpu/validator:" + VERSION);
    }

    @Test
    void grantsDiscoveryOnlyWhatItsSinkNeeds() throws IOException {
        List<String> nodes = List.of("[nodes] [get, patch]");
        List<String> nodeFeatures = List.of("[nodefeatures] [get, create, patch]", "[pods] [get]");

        assertThat(clusterRules(render("{gfd: {labelSink: node}}"))).isEqualTo(nodes);
        assertThat(namespacedRules(render("{gfd: {labelSink: node}}"))).isEmpty();

        assertThat(clusterRules(render("{gfd: {labelSink: nodefeature}}"))).isEmpty();
        assertThat(namespacedRules(render("{gfd: {labelSink: nodefeature}}"))).isEqualTo(nodeFeatures);

        List<HasMetadata> file = render("{gfd: {labelSink: file}}");
        assertThat(clusterRules(file)).isEmpty();
        assertThat(namespacedRules(file)).isEmpty();
        assertThat(file).filteredOn(o -> o instanceof ServiceAccount && o.getMetadata().getName().equals("kgpu-discovery"))
                .singleElement().extracting(o -> ((ServiceAccount) o).getAutomountServiceAccountToken()).isEqualTo(false);

        // no sink named: NodeFeature when NFD serves it, else the Node; both grants
        assertThat(clusterRules(render("{}"))).isEqualTo(nodes);
        assertThat(namespacedRules(render("{}"))).isEqualTo(nodeFeatures);
    }

    @Test
    void refusesAnUnknownLabelSinkInOneLine() {
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> render("{gfd: {labelSink: configmap}}")))
                .hasMessageContaining("gfd.labelSink was 'configmap' but it must be node, nodefeature, file or empty");
    }

    @Test
    void mountsTheHostsCdiFolderAndDriverRootOnlyForACdiStrategy() throws IOException {
        assertThat(mountPaths(render("{}"), "kgpu-plugin", "plugin")).doesNotContain("/var/run/cdi");
        assertThat(mountPaths(render("{deviceListStrategy: envvar}"), "kgpu-plugin", "plugin")).doesNotContain("/var/run/cdi");
        // with CDI, the plugin writes its spec there, from the driver root it reads (read-only) at /driver-root
        assertThat(mountPaths(render("{deviceListStrategy: cdi-annotations}"), "kgpu-plugin", "plugin"))
                .contains("/var/run/cdi", "/driver-root");
    }

    @Test
    void theMpsControlDaemonRunsOnlyOnMpsCapableNodesWithNvidiasHostPathsAndNothingMore() throws IOException {
        List<HasMetadata> objects = render("{nodeSelector: {nvidia.com/gpu.deploy.kgpu: \"true\"}, migStrategy: single,"
                + " config: {map: {config.yaml: \"version: v1\"}}}");
        DaemonSet mps = daemonSet(objects, "kgpu-mps-control-daemon");
        var pod = mps.getSpec().getTemplate().getSpec();
        assertThat(pod.getNodeSelector()).containsExactlyInAnyOrderEntriesOf(
                java.util.Map.of("nvidia.com/mps.capable", "true", "nvidia.com/gpu.deploy.kgpu", "true"));
        // NVIDIA's v0.17 chart: no host PID, IPC or network; its own pods, not the plugin's (NVIDIA's issue #982)
        assertThat(pod.getHostPID()).isNotEqualTo(Boolean.TRUE);
        assertThat(pod.getHostIPC()).isNotEqualTo(Boolean.TRUE);
        assertThat(pod.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
        assertThat(mps.getSpec().getSelector().getMatchLabels())
                .isNotEqualTo(daemonSet(objects, "kgpu-plugin").getSpec().getSelector().getMatchLabels());
        assertThat(pod.getVolumes()).filteredOn(v -> v.getHostPath() != null)
                .extracting(v -> v.getName() + "=" + v.getHostPath().getPath() + ":" + v.getHostPath().getType())
                .containsExactlyInAnyOrder("mps-root=/run/nvidia/mps:DirectoryOrCreate", "mps-shm=/run/nvidia/mps/shm:Directory");
        Container mountShm = pod.getInitContainers().getFirst();
        assertThat(mountShm.getArgs()).containsExactly("mps-control-daemon", "mount-shm");
        assertThat(mountShm.getVolumeMounts()).singleElement()
                .satisfies(m -> assertThat(m.getMountPath() + ":" + m.getMountPropagation()).isEqualTo("/mps:Bidirectional"));
        Container daemon = pod.getContainers().getFirst();
        assertThat(pod.getContainers()).hasSize(1);
        assertThat(daemon.getArgs()).containsExactly("mps-control-daemon");
        assertThat(daemon.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
        // it sets its GPUs to EXCLUSIVE_PROCESS: the NVIDIA driver's administrator test is CAP_SYS_ADMIN, and no other
        assertThat(daemon.getSecurityContext().getCapabilities().getAdd()).containsExactly("SYS_ADMIN");
        assertThat(daemon.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(daemon.getEnv()).extracting(e -> e.getName() + "=" + e.getValue()).contains("MIG_STRATEGY=single",
                "CONFIG_FILE=/config/config.yaml", "NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility");
        assertThat(mountPaths(objects, "kgpu-mps-control-daemon", "mps-control-daemon")).contains("/mps", "/dev/shm");
        // the plugin asks the daemons whether they run: the MPS root read-only, the host path in MPS_ROOT
        assertThat(mountPaths(objects, "kgpu-plugin", "plugin")).contains("/mps");
        assertThat(daemonSet(objects, "kgpu-plugin").getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv()).extracting(e -> e.getName() + "=" + e.getValue())
                .contains("MPS_ROOT=/run/nvidia/mps", "NVIDIA_DRIVER_CAPABILITIES=compute,utility");

        assertThat(render("{devicePlugin: {enabled: false}, draDriver: {enabled: true}}"))
                .noneMatch(o -> o.getMetadata().getName().equals("kgpu-mps-control-daemon"));
    }

    @Test
    void theDraDriverGetsItsClaimsItsNodesSlicesAndNvidiasDeviceClassesOnlyWhenAskedFor() throws IOException {
        List<HasMetadata> defaults = render("{}");
        assertThat(defaults).noneMatch(o -> o.getKind().equals("DeviceClass") || o.getKind().equals("ValidatingAdmissionPolicy")
                || o.getMetadata().getName().equals("kgpu-plugin-dra"));
        assertThat(env(defaults, "KGPU_KUBELET_APIS")).isEmpty();
        assertThat(defaults).filteredOn(o -> o instanceof ServiceAccount && o.getMetadata().getName().equals("kgpu-plugin"))
                .singleElement().extracting(o -> ((ServiceAccount) o).getAutomountServiceAccountToken()).isEqualTo(false);

        List<HasMetadata> dra = render("{draDriver: {enabled: true}}");
        assertThat(rules(dra.stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast)
                .filter(r -> r.getMetadata().getName().equals("kgpu-plugin-dra")).findFirst().map(ClusterRole::getRules)))
                .containsExactly("[resourceclaims] [get]", "[resourceslices] [list, watch, create, update, delete]", "[nodes] [get]");
        assertThat(dra).filteredOn(o -> o instanceof ValidatingAdmissionPolicy).singleElement()
                .satisfies(o -> assertThat(((ValidatingAdmissionPolicy) o).getSpec().getMatchConditions().getFirst().getExpression())
                        .contains("system:serviceaccount:kgpu:kgpu-plugin"));
        assertThat(dra).filteredOn(o -> o instanceof DeviceClass).extracting(o -> o.getMetadata().getName() + ": "
                        + ((DeviceClass) o).getSpec().getSelectors().getFirst().getCel().getExpression())
                .containsExactly("gpu.nvidia.com: device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
                        "mig.nvidia.com: device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'");
        assertThat(env(dra, "KGPU_KUBELET_APIS")).contains("device-plugin,dra");
        assertThat(env(dra, "KUBELET_PLUGINS_DIRECTORY_PATH")).contains("/var/lib/kubelet/plugins");
        assertThat(mountPaths(dra, "kgpu-plugin", "plugin")).contains("/var/lib/kubelet/device-plugins",
                "/var/lib/kubelet/plugins_registry", "/var/lib/kubelet/plugins/gpu.nvidia.com", "/var/run/cdi", "/driver-root",
                "/var/lib/kubelet/pod-resources");

        List<HasMetadata> alone = render("{devicePlugin: {enabled: false}, draDriver: {enabled: true, deviceClasses: false,"
                + " nodeScopedSlices: false}}");
        assertThat(env(alone, "KGPU_KUBELET_APIS")).contains("dra");
        assertThat(mountPaths(alone, "kgpu-plugin", "plugin")).doesNotContain("/var/lib/kubelet/device-plugins");
        assertThat(alone).noneMatch(o -> o instanceof DeviceClass || o instanceof ValidatingAdmissionPolicy);
    }

    @Test
    void mpsClaimsGetTheMpsRootReadWriteAndTheRightToSetComputeModesOnlyWhenAskedFor() throws IOException {
        // off (the default): beside the device plugin the MPS root read-only; alone, no MPS root, no MPS_ROOT, no compute
        Container beside = plugin(render("{draDriver: {enabled: true}}"));
        assertThat(beside.getVolumeMounts()).filteredOn(m -> m.getMountPath().equals("/mps")).singleElement()
                .satisfies(m -> assertThat(m.getReadOnly()).isTrue());
        assertThat(beside.getSecurityContext().getCapabilities().getAdd()).isEmpty();
        assertThat(beside.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        Container alone = plugin(render("{devicePlugin: {enabled: false}, draDriver: {enabled: true}}"));
        assertThat(alone.getVolumeMounts()).noneMatch(m -> m.getMountPath().equals("/mps"));
        assertThat(alone.getEnv()).extracting(e -> e.getName() + "=" + e.getValue())
                .contains("NVIDIA_DRIVER_CAPABILITIES=utility").noneMatch(e -> e.startsWith("MPS_ROOT="));

        for (String values : List.of("{draDriver: {enabled: true, mps: {enabled: true}}, mps: {root: /var/run/mps}}",
                "{devicePlugin: {enabled: false}, draDriver: {enabled: true, mps: {enabled: true}}, mps: {root: /var/run/mps}}")) {
            List<HasMetadata> objects = render(values);
            Container on = plugin(objects);
            assertThat(on.getVolumeMounts()).as(values).filteredOn(m -> m.getMountPath().equals("/mps")).singleElement()
                    .satisfies(m -> assertThat(m.getReadOnly()).isNotEqualTo(Boolean.TRUE));
            assertThat(daemonSet(objects, "kgpu-plugin").getSpec().getTemplate().getSpec().getVolumes())
                    .filteredOn(v -> v.getName().equals("mps-root")).singleElement()
                    .satisfies(v -> assertThat(v.getHostPath().getPath()).isEqualTo("/var/run/mps"));
            // the CDI mounts name the host folder; the control program needs the driver's compute utilities
            assertThat(on.getEnv()).as(values).extracting(e -> e.getName() + "=" + e.getValue())
                    .contains("MPS_ROOT=/var/run/mps", "NVIDIA_DRIVER_CAPABILITIES=compute,utility");
            // CAP_SYS_ADMIN alone (the NVIDIA driver's administrator test for a compute mode), as root, not privileged
            assertThat(on.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
            assertThat(on.getSecurityContext().getRunAsUser()).isZero();
            assertThat(on.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
            assertThat(on.getSecurityContext().getCapabilities().getAdd()).containsExactly("SYS_ADMIN");
            assertThat(on.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        }
        // passDeviceSpecs makes the container privileged anyway: nothing to add
        Container privileged = plugin(render("{passDeviceSpecs: true, draDriver: {enabled: true, mps: {enabled: true}}}"));
        assertThat(privileged.getSecurityContext().getPrivileged()).isTrue();
        assertThat(privileged.getSecurityContext().getCapabilities()).isNull();
    }

    private static Container plugin(List<HasMetadata> objects) {
        return daemonSet(objects, "kgpu-plugin").getSpec().getTemplate().getSpec().getContainers().getFirst();
    }

    @Test
    void theValidatorsPluginComponentClaimsThroughDraOnlyWhenAskedFor() throws IOException {
        List<HasMetadata> defaults = render("{draDriver: {enabled: true}}");
        assertThat(validatorEnv(defaults)).noneMatch(e -> e.getName().equals("KGPU_PLUGIN_DEVICE_CLASS"));
        assertThat(validatorRules(defaults)).noneMatch(r -> r.contains("resourceslices") || r.contains("resourceclaimtemplates"));

        List<HasMetadata> claim = render("{draDriver: {enabled: true}, validator: {pluginDeviceClass: gpu.nvidia.com}}");
        DaemonSet validator = daemonSet(claim, "kgpu-validator");
        Container pluginValidation = validator.getSpec().getTemplate().getSpec().getInitContainers().stream()
                .filter(c -> c.getName().equals("plugin-validation")).findFirst().orElseThrow();
        assertThat(pluginValidation.getEnv()).filteredOn(e -> e.getName().equals("KGPU_PLUGIN_DEVICE_CLASS"))
                .singleElement().satisfies(e -> assertThat(e.getValue()).isEqualTo("gpu.nvidia.com"));
        assertThat(validator.getSpec().getTemplate().getSpec().getInitContainers()).filteredOn(c -> !c.getName().equals("plugin-validation"))
                .allSatisfy(c -> assertThat(c.getEnv()).noneMatch(e -> e.getName().equals("KGPU_PLUGIN_DEVICE_CLASS")));
        assertThat(validator.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv())
                .anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("KGPU_PLUGIN_DEVICE_CLASS=gpu.nvidia.com"));
        assertThat(validatorRules(claim)).contains("[resourceslices] [list]", "[resourceclaimtemplates] [get, create]");
    }

    private static List<io.fabric8.kubernetes.api.model.EnvVar> validatorEnv(List<HasMetadata> objects) {
        var spec = daemonSet(objects, "kgpu-validator").getSpec().getTemplate().getSpec();
        return java.util.stream.Stream.concat(spec.getInitContainers().stream(), spec.getContainers().stream())
                .flatMap(c -> c.getEnv().stream()).toList();
    }

    /** The validator's ClusterRole's and Role's rules, each {@code [resources] [verbs]}. */
    private static List<String> validatorRules(List<HasMetadata> objects) {
        List<String> rules = new java.util.ArrayList<>();
        objects.stream().filter(o -> o.getMetadata().getName().equals("kgpu-validator")).forEach(o -> {
            if (o instanceof ClusterRole role) {
                rules.addAll(rules(java.util.Optional.of(role.getRules())));
            } else if (o instanceof io.fabric8.kubernetes.api.model.rbac.Role role) {
                rules.addAll(rules(java.util.Optional.of(role.getRules())));
            }
        });
        return rules;
    }

    private static java.util.Optional<String> env(List<HasMetadata> objects, String name) {
        return objects.stream().filter(o -> o instanceof DaemonSet && o.getMetadata().getName().equals("kgpu-plugin"))
                .map(DaemonSet.class::cast).flatMap(d -> d.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream())
                .filter(e -> e.getName().equals(name)).map(e -> e.getValue()).findFirst();
    }

    @Test
    void waitsAndCleansUpWithTheValidatorsOwnCommands() throws IOException {
        List<HasMetadata> objects = render("{validations: {gate: true}}");
        for (String agent : List.of("plugin", "discovery", "exporter")) {
            Container gate = daemonSet(objects, "kgpu-" + agent).getSpec().getTemplate().getSpec().getInitContainers().getFirst();
            assertThat(gate.getImage()).isEqualTo("ghcr.io/kgpu/validator:" + VERSION);
            assertThat(gate.getCommand()).containsExactly("/opt/kgpu/validator", "wait-for", "/run/nvidia/validations/toolkit-ready");
        }
        Container validator = daemonSet(objects, "kgpu-validator").getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertThat(validator.getLifecycle().getPreStop().getExec().getCommand())
                .containsExactly("/opt/kgpu/validator", "remove-ready-files", "/run/nvidia/validations");
    }

    @Test
    void jvmImagesGetTheJvmsStartCommand() throws IOException {
        List<HasMetadata> objects = render("{image: {flavour: jvm}, validations: {gate: true}}");
        Container gate = daemonSet(objects, "kgpu-plugin").getSpec().getTemplate().getSpec().getInitContainers().getFirst();
        assertThat(gate.getCommand()).startsWith("/opt/java/bin/java").endsWith("wait-for", "/run/nvidia/validations/toolkit-ready");
        Container validator = daemonSet(objects, "kgpu-validator").getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertThat(validator.getLifecycle().getPreStop().getExec().getCommand())
                .startsWith("/opt/java/bin/java").endsWith("remove-ready-files", "/run/nvidia/validations");
    }

    @Test
    void passesExtraJvmOptionsAfterTheImagesOwn() throws IOException {
        Container exporter = daemonSet(render("{javaOpts: \"-Xmx96m\", dcgmExporter: {javaOpts: \"-Xlog:gc\"}}"), "kgpu-exporter")
                .getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertThat(exporter.getEnv()).filteredOn(e -> e.getName().equals("_JAVA_OPTIONS")).singleElement()
                .extracting(e -> e.getValue()).isEqualTo("-Xmx96m -Xlog:gc");
        assertThat(daemonSet(render("{}"), "kgpu-exporter").getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv())
                .noneMatch(e -> e.getName().equals("_JAVA_OPTIONS"));
    }

    @Test
    void theExportersWebConfigIsOffByDefault() throws IOException {
        List<HasMetadata> objects = render("{dcgmExporter: {serviceMonitor: {enabled: true}}}");
        Container exporter = exporter(objects);
        assertThat(objects).noneMatch(Secret.class::isInstance);
        assertThat(exporter.getEnv()).noneMatch(e -> e.getName().equals("DCGM_EXPORTER_WEB_CONFIG_FILE"));
        assertThat(exporter.getVolumeMounts()).extracting(m -> m.getMountPath())
                .noneMatch(p -> p.startsWith("/etc/dcgm-exporter/tls") || p.startsWith("/etc/dcgm-exporter/web-config"));
        assertThat(probeSchemes(exporter)).containsOnlyNulls();
        ServiceMonitor monitor = serviceMonitor(objects);
        assertThat(monitor.getSpec().getEndpoints().getFirst().getScheme()).isNull();
        assertThat(monitor.getSpec().getEndpoints().getFirst().getTlsConfig()).isNull();
    }

    @Test
    void servesTlsFromAGeneratedSecretWithHttpsProbesAndScrapes() throws IOException, java.security.GeneralSecurityException {
        List<HasMetadata> objects = render("{dcgmExporter: {tlsServerConfig: {enabled: true, clientAuthType: VerifyClientCertIfGiven},"
                + " serviceMonitor: {enabled: true}}}");
        Container exporter = exporter(objects);

        assertThat(exporter.getEnv()).filteredOn(e -> e.getName().equals("DCGM_EXPORTER_WEB_CONFIG_FILE")).singleElement()
                .extracting(e -> e.getValue()).isEqualTo("/etc/dcgm-exporter/web-config.yaml");
        assertThat(exporter.getVolumeMounts()).filteredOn(m -> m.getMountPath().startsWith("/etc/dcgm-exporter/"))
                .extracting(m -> m.getName() + ":" + m.getMountPath() + ":" + m.getSubPath() + ":" + m.getReadOnly())
                .containsExactlyInAnyOrder("tls:/etc/dcgm-exporter/tls:null:true",
                        "web-config:/etc/dcgm-exporter/web-config.yaml:web-config.yaml:true");
        assertThat(secretVolumes(objects)).containsExactlyInAnyOrder("tls=kgpu-exporter-tls", "web-config=kgpu-exporter-web-config");
        assertThat(probeSchemes(exporter)).containsExactly("HTTPS", "HTTPS", "HTTPS");

        assertThat(webConfig(objects)).isEqualTo("""
                tls_server_config:
                  cert_file: "/etc/dcgm-exporter/tls/tls.crt"
                  key_file: "/etc/dcgm-exporter/tls/tls.key"
                  client_auth_type: VerifyClientCertIfGiven
                  client_ca_file: "/etc/dcgm-exporter/tls/ca.crt"
                """);
        // a self-signed certificate for the Service's names, signed by the CA that comes with it
        Secret tls = secret(objects, "kgpu-exporter-tls");
        assertThat(tls.getData()).containsOnlyKeys("tls.crt", "tls.key", "ca.crt");
        X509Certificate cert = certificate(tls.getData().get("tls.crt"));
        X509Certificate ca = certificate(tls.getData().get("ca.crt"));
        assertThat(cert.getSubjectAlternativeNames()).extracting(n -> String.valueOf(n.get(1)))
                .contains("kgpu-exporter", "kgpu-exporter.kgpu.svc");
        assertThat(cert.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
        assertThatCode(() -> cert.verify(ca.getPublicKey())).doesNotThrowAnyException();

        var endpoint = serviceMonitor(objects).getSpec().getEndpoints().getFirst();
        assertThat(endpoint.getScheme()).isEqualTo("https");
        assertThat(endpoint.getTlsConfig().getCa().getSecret().getName()).isEqualTo("kgpu-exporter-tls");
        assertThat(endpoint.getTlsConfig().getCa().getSecret().getKey()).isEqualTo("ca.crt");
        assertThat(endpoint.getTlsConfig().getServerName()).isEqualTo("kgpu-exporter.kgpu.svc");
    }

    @Test
    void servesTheUsersCertificateFromTheirSecretOrTheirValues() throws IOException {
        List<HasMetadata> theirs = render("{dcgmExporter: {tlsServerConfig: {enabled: true, existingSecret: exporter-cert,"
                + " certFilename: cert.pem, keyFilename: key.pem}, serviceMonitor: {enabled: true, tlsConfig: {insecureSkipVerify: true}}}}");
        assertThat(theirs).filteredOn(Secret.class::isInstance).extracting(o -> o.getMetadata().getName())
                .containsExactly("kgpu-exporter-web-config");
        assertThat(secretVolumes(theirs)).contains("tls=exporter-cert");
        assertThat(webConfig(theirs)).contains("cert_file: \"/etc/dcgm-exporter/tls/cert.pem\"",
                "key_file: \"/etc/dcgm-exporter/tls/key.pem\"").doesNotContain("client_");
        var endpoint = serviceMonitor(theirs).getSpec().getEndpoints().getFirst();
        assertThat(endpoint.getTlsConfig().getInsecureSkipVerify()).isTrue();
        assertThat(endpoint.getTlsConfig().getCa()).isNull();

        List<HasMetadata> values = render("{dcgmExporter: {tlsServerConfig: {enabled: true, cert: CERT, key: KEY}}}");
        assertThat(secret(values, "kgpu-exporter-tls").getData()).containsOnlyKeys("tls.crt", "tls.key")
                .containsEntry("tls.crt", Base64.getEncoder().encodeToString("CERT".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void checksBasicAuthWithBcryptHashesAndLeavesTheProbesOnHttp() throws IOException {
        List<HasMetadata> objects = render("{dcgmExporter: {basicAuth: {users: {prometheus: s3cret, grafana: other}}}}");
        Container exporter = exporter(objects);
        assertThat(objects).filteredOn(Secret.class::isInstance).extracting(o -> o.getMetadata().getName())
                .containsExactly("kgpu-exporter-web-config");
        assertThat(exporter.getEnv()).anyMatch(e -> e.getName().equals("DCGM_EXPORTER_WEB_CONFIG_FILE"));
        assertThat(probeSchemes(exporter)).containsOnlyNulls();
        String webConfig = webConfig(objects);
        assertThat(webConfig).startsWith("basic_auth_users:\n").doesNotContain("s3cret", "tls_server_config");
        // checked as the exporter checks them (Spring Security's BCrypt), each against its own user's password
        assertThat(webConfig.lines().skip(1).map(l -> l.trim().replace("\"", "").split(": ", 2)))
                .extracting(u -> u[0] + "=" + (BCrypt.checkpw(u[0].equals("prometheus") ? "s3cret" : "other", u[1])
                        + "/" + BCrypt.checkpw("wrong", u[1])))
                .containsExactlyInAnyOrder("grafana=true/false", "prometheus=true/false");
    }

    @Test
    void refusesClientCertificatesTheProbesCannotSendInOneLine() {
        assertThat(catchThrowable(() -> render("{dcgmExporter: {tlsServerConfig: {enabled: true, clientAuthType: RequireAndVerifyClientCert}}}")))
                .hasMessageContaining("dcgmExporter.tlsServerConfig.clientAuthType was 'RequireAndVerifyClientCert' but it would fail"
                        + " every probe: the kubelet sends no client certificate");
        assertThat(catchThrowable(() -> render("{dcgmExporter: {tlsServerConfig: {enabled: true, clientAuthType: RequireAnyClientCert}}}")))
                .hasMessageContaining("dcgmExporter.tlsServerConfig.clientAuthType was 'RequireAnyClientCert' but it must be");
        assertThat(catchThrowable(() -> render("{dcgmExporter: {tlsServerConfig: {enabled: true, autoGenerated: false}}}")))
                .hasMessageContaining("dcgmExporter.tlsServerConfig.cert was '' but it is required");
    }

    private static Container exporter(List<HasMetadata> objects) {
        return daemonSet(objects, "kgpu-exporter").getSpec().getTemplate().getSpec().getContainers().getFirst();
    }

    /** The startup, liveness and readiness probes' schemes (null: HTTP). */
    private static List<String> probeSchemes(Container container) {
        return java.util.Arrays.asList(container.getStartupProbe().getHttpGet().getScheme(),
                container.getLivenessProbe().getHttpGet().getScheme(), container.getReadinessProbe().getHttpGet().getScheme());
    }

    private static List<String> secretVolumes(List<HasMetadata> objects) {
        return daemonSet(objects, "kgpu-exporter").getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getSecret() != null).map(v -> v.getName() + "=" + v.getSecret().getSecretName()).toList();
    }

    private static Secret secret(List<HasMetadata> objects, String name) {
        return objects.stream().filter(Secret.class::isInstance).map(Secret.class::cast)
                .filter(o -> o.getMetadata().getName().equals(name)).findFirst().orElseThrow(() -> new AssertionError("no Secret " + name));
    }

    private static String webConfig(List<HasMetadata> objects) {
        return secret(objects, "kgpu-exporter-web-config").getStringData().get("web-config.yaml");
    }

    private static ServiceMonitor serviceMonitor(List<HasMetadata> objects) {
        return objects.stream().filter(ServiceMonitor.class::isInstance).map(ServiceMonitor.class::cast).findFirst().orElseThrow();
    }

    private static X509Certificate certificate(String base64) throws IOException {
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new java.io.ByteArrayInputStream(Base64.getDecoder().decode(base64)));
        } catch (java.security.cert.CertificateException e) {
            throw new IOException(e);
        }
    }

    private List<HasMetadata> render(String values) throws IOException {
        Path file = Files.writeString(Files.createTempFile(work, "values", ".yaml"), values, StandardCharsets.UTF_8);
        TemplateCommand template = new Helm(CHART).template().withName("kgpu").withNamespace("kgpu").withValuesFile(file);
        return Manifests.read(template.call(), "helm template with " + values.replace('\n', ' '));
    }

    static DaemonSet daemonSet(List<HasMetadata> objects, String name) {
        return objects.stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast)
                .filter(d -> d.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no DaemonSet " + name));
    }

    private static Set<String> images(List<HasMetadata> objects) {
        Set<String> images = new HashSet<>();
        objects.stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast).forEach(d -> {
            var pod = d.getSpec().getTemplate().getSpec();
            Stream.concat(pod.getInitContainers().stream(), pod.getContainers().stream()).forEach(c -> images.add(c.getImage()));
        });
        return images;
    }

    private static List<String> mountPaths(List<HasMetadata> objects, String daemonSet, String container) {
        return daemonSet(objects, daemonSet).getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(c -> c.getName().equals(container)).findFirst().orElseThrow().getVolumeMounts().stream()
                .map(m -> m.getMountPath()).toList();
    }

    private static List<String> clusterRules(List<HasMetadata> objects) {
        return rules(objects.stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast)
                .filter(r -> r.getMetadata().getName().equals("kgpu-discovery")).findFirst().map(ClusterRole::getRules));
    }

    private static List<String> namespacedRules(List<HasMetadata> objects) {
        return rules(objects.stream().filter(Role.class::isInstance).map(Role.class::cast)
                .filter(r -> r.getMetadata().getName().equals("kgpu-discovery")).findFirst().map(Role::getRules));
    }

    private static List<String> rules(Optional<List<PolicyRule>> rules) {
        return rules.orElse(List.of()).stream().map(r -> r.getResources() + " " + r.getVerbs()).toList();
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }

    private static Set<String> only(Set<String> all, String prefix) {
        return all.stream().filter(s -> s.startsWith(prefix)).collect(java.util.stream.Collectors.toUnmodifiableSet());
    }
}
