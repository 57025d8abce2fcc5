package dev.kgpu.chart;

import io.fabric8.kubernetes.api.model.HasMetadata;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The checks the chart and manifest tests rely on catch what they are meant to catch. */
class ChecksTest {

    private static final String DAEMON_SET = """
            apiVersion: v1
            kind: ServiceAccount
            metadata: {name: agent, namespace: kgpu}
            ---
            apiVersion: apps/v1
            kind: DaemonSet
            metadata: {name: agent, namespace: kgpu}
            spec:
              selector: {matchLabels: {app: agent}}
              template:
                metadata: {labels: {app: agent}}
                spec:
                  serviceAccountName: agent
                  tolerations: [{key: CriticalAddonsOnly, operator: Exists}]
                  containers:
                    - name: agent
                      image: ghcr.io/kgpu/agent:1
                      ports: [{name: http, containerPort: 8080}]
                      startupProbe: {httpGet: {path: /q/health/live, port: http}}
                      livenessProbe: {httpGet: {path: /q/health/live, port: http}}
                      readinessProbe: {httpGet: {path: /q/health/ready, port: %s}}
                      securityContext:
                        runAsUser: 0
                        allowPrivilegeEscalation: false
                        readOnlyRootFilesystem: true
                        capabilities: {drop: [ALL]}
                        seccompProfile: {type: RuntimeDefault}
                      %s
                      volumeMounts:
                        - {name: host, mountPath: /host, %s}
                  volumes:
                    - {name: host, hostPath: {path: /, type: Directory}}
            """;

    private static List<HasMetadata> daemonSet(String readinessPort, String extra, String mount) {
        return Manifests.read(DAEMON_SET.formatted(readinessPort, extra, mount), "test");
    }

    private static final Hardening NOTHING_SPECIAL = new Hardening(Set.of(), Set.of(), Set.of());

    @Test
    void aSoundDaemonSetPassesEveryCheck() {
        List<HasMetadata> objects = daemonSet("http", "", "readOnly: true");
        objects.forEach(o -> assertThat(Manifests.schemaProblems(o)).isEmpty());
        assertThat(ApiServerRules.problems(objects)).isEmpty();
        assertThat(NOTHING_SPECIAL.problems(objects)).isEmpty();
    }

    @Test
    void findsAFieldTheSchemaDoesNotHave() {
        List<HasMetadata> objects = daemonSet("http", "imagePullPolicyy: Always", "readOnly: true");
        assertThat(Manifests.schemaProblems(objects.get(1))).singleElement().asString()
                .contains("containers[0] has fields its schema does not: [imagePullPolicyy]");
    }

    @Test
    void refusesAValueOfTheWrongType() {
        assertThatThrownBy(() -> daemonSet("http", "tty: [yes]", "readOnly: true"))
                .hasMessageContaining("does not fit its kind's schema");
    }

    @Test
    void refusesAKindWithoutAModel() {
        assertThatThrownBy(() -> Manifests.read("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n", "test"))
                .hasMessageContaining("of a kind without a model");
    }

    @Test
    void findsWhatTheApiServerRejectsAndTheSchemaAllows() {
        assertThat(ApiServerRules.problems(daemonSet("http", "", "readOnly: true, mountPropagation: Bidirectional")))
                .singleElement().asString().contains("Bidirectional, which the API server allows only in privileged containers");
        assertThat(ApiServerRules.problems(daemonSet("metrics", "", "readOnly: true")))
                .singleElement().asString().contains("names port 'metrics', which the container does not declare");
    }

    @Test
    void allowsAnAddedCapabilityOnlyWhereExceptedAndExactlyTheOneExcepted() {
        String sysAdmin = DAEMON_SET.formatted("http", "", "readOnly: true")
                .replace("allowPrivilegeEscalation: false", "allowPrivilegeEscalation: true").replace("{drop: [ALL]}", "{drop: [ALL], add: [SYS_ADMIN]}");
        List<HasMetadata> objects = Manifests.read(sysAdmin, "test");
        assertThat(NOTHING_SPECIAL.problems(objects)).containsExactlyInAnyOrder(
                "agent/agent: allowPrivilegeEscalation is not false",
                "agent/agent: capabilities are not dropped (drop [ALL], add nothing)");
        assertThat(new Hardening(Set.of(), Set.of(), Set.of(), Map.of("agent/agent", Set.of("SYS_ADMIN"))).problems(objects))
                .isEmpty();
        assertThat(new Hardening(Set.of(), Set.of(), Set.of(), Map.of("agent/agent", Set.of("SYS_ADMIN", "NET_ADMIN")))
                .problems(objects)).singleElement().asString().contains("add exactly [");
        assertThat(ApiServerRules.problems(objects)).isEmpty();
    }

    @Test
    void findsAWritableHostPathAShellAndAMissingSeccompProfile() {
        assertThat(NOTHING_SPECIAL.problems(daemonSet("http", "", "readOnly: false")))
                .singleElement().asString().contains("read-write, where it writes nothing");
        assertThat(NOTHING_SPECIAL.problems(daemonSet("http", "lifecycle: {preStop: {exec: {command: [sh, -c, 'rm -f /x']}}}",
                "readOnly: true"))).singleElement().asString().contains("runs sh");
        String withoutSeccomp = DAEMON_SET.formatted("http", "", "readOnly: true").replace("seccompProfile: {type: RuntimeDefault}", "");
        assertThat(NOTHING_SPECIAL.problems(Manifests.read(withoutSeccomp, "test")))
                .singleElement().asString().contains("seccompProfile is null, not RuntimeDefault");
    }
}
