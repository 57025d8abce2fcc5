package dev.kgpu.sim.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TableViewTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
    private static final String TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

    @Test
    void onlyKubectlsTableRequestsOfPodsNodesAndEventsAreConverted() {
        assertThat(TableView.wanted("/api/v1/namespaces/ml/pods", TABLE_ACCEPT, "limit=500")).isTrue();
        assertThat(TableView.wanted("/api/v1/pods", TABLE_ACCEPT, null)).isTrue();
        assertThat(TableView.wanted("/api/v1/nodes/n1", TABLE_ACCEPT, null)).isTrue();
        assertThat(TableView.wanted("/api/v1/namespaces/ml/events", TABLE_ACCEPT, null)).isTrue();
        assertThat(TableView.wanted("/api/v1/namespaces/ml/pods", "application/json", null)).isFalse();
        assertThat(TableView.wanted("/api/v1/namespaces/ml/pods", TABLE_ACCEPT, "watch=true")).isFalse();
        assertThat(TableView.wanted("/api/v1/namespaces/ml/configmaps", TABLE_ACCEPT, null)).isFalse();
    }

    @Test
    void podsReadAsKubectlPrintsThem() throws Exception {
        String pods = """
                {"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[
                 {"metadata":{"name":"cuda-demo","namespace":"ml","creationTimestamp":"2026-01-01T11:59:15Z"},
                  "spec":{"containers":[{"name":"main"}],"nodeName":"n1"},
                  "status":{"phase":"Running","podIP":"10.244.0.2","containerStatuses":[{"name":"main","ready":true,"restartCount":0,"state":{"running":{}}}]}},
                 {"metadata":{"name":"second","namespace":"ml","creationTimestamp":"2026-01-01T11:40:00Z"},
                  "spec":{"containers":[{"name":"main"}]},
                  "status":{"phase":"Pending"}},
                 {"metadata":{"name":"sample","namespace":"ml","creationTimestamp":"2026-01-01T09:30:00Z"},
                  "spec":{"containers":[{"name":"main"}],"nodeName":"n1"},
                  "status":{"phase":"Succeeded","containerStatuses":[{"name":"main","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}},
                 {"metadata":{"name":"looping","namespace":"ml","creationTimestamp":"2025-12-29T12:00:00Z"},
                  "spec":{"containers":[{"name":"main"}],"nodeName":"n1"},
                  "status":{"phase":"Running","containerStatuses":[{"name":"main","ready":false,"restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}},
                 {"metadata":{"name":"rejected","namespace":"ml","creationTimestamp":"2026-01-01T11:59:59Z"},
                  "spec":{"containers":[{"name":"main"}],"nodeName":"n1"},
                  "status":{"phase":"Failed","reason":"UnexpectedAdmissionError"}}]}""";

        JsonNode table = JSON.readTree(TableView.of("/api/v1/namespaces/ml/pods", pods, NOW).orElseThrow());

        assertThat(table.path("kind").asText()).isEqualTo("Table");
        assertThat(names(table.path("columnDefinitions"))).containsExactly("Name", "Ready", "Status", "Restarts", "Age", "IP", "Node");
        assertThat(rows(table)).containsExactly(
                "cuda-demo|1/1|Running|0|45s|10.244.0.2|n1",
                "second|0/1|Pending|0|20m|<none>|<none>",
                "sample|0/1|Completed|0|150m|<none>|n1",
                "looping|0/1|CrashLoopBackOff|3|3d|<none>|n1",
                "rejected|0/1|UnexpectedAdmissionError|0|1s|<none>|n1");
        assertThat(table.path("rows").get(0).path("object").path("metadata").path("namespace").asText()).isEqualTo("ml");
    }

    @Test
    void aNodeReadsAsKubectlPrintsIt() throws Exception {
        String node = """
                {"kind":"Node","apiVersion":"v1","metadata":{"name":"n1","creationTimestamp":"2026-01-01T11:55:00Z"},
                 "status":{"conditions":[{"type":"Ready","status":"True"}],"addresses":[{"type":"InternalIP","address":"127.0.0.1"}],
                  "nodeInfo":{"kubeletVersion":"v1.32.0","osImage":"sim","kernelVersion":"6.1","containerRuntimeVersion":"sim://1"}}}""";

        JsonNode table = JSON.readTree(TableView.of("/api/v1/nodes/n1", node, NOW).orElseThrow());

        assertThat(rows(table)).containsExactly("n1|Ready|<none>|5m|v1.32.0|127.0.0.1|sim|6.1|sim://1");
    }

    @Test
    void aStatusIsLeftAlone() {
        assertThat(TableView.of("/api/v1/nodes/n2", """
                {"kind":"Status","code":404}""", NOW)).isEmpty();
    }

    @Test
    void fieldSelectorsFilterListsLikeTheApiServer() throws Exception {
        String pods = """
                {"kind":"List","items":[
                 {"metadata":{"name":"a"},"spec":{"nodeName":"n1"},"status":{"phase":"Running"}},
                 {"metadata":{"name":"b"},"spec":{"nodeName":"n1"},"status":{"phase":"Succeeded"}},
                 {"metadata":{"name":"c"},"spec":{},"status":{"phase":"Pending"}}]}""";

        String filtered = FieldSelector.parse("spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed")
                .orElseThrow().filter(pods).orElseThrow();
        String unscheduled = FieldSelector.parse("spec.nodeName==").orElseThrow().filter(pods).orElseThrow();

        assertThat(itemNames(filtered)).containsExactly("a");
        assertThat(itemNames(unscheduled)).containsExactly("c");
        assertThat(FieldSelector.parse("spec.nodeName")).isEmpty();
    }

    private static List<String> names(JsonNode columns) {
        List<String> names = new ArrayList<>();
        columns.forEach(c -> names.add(c.path("name").asText()));
        return names;
    }

    private static List<String> rows(JsonNode table) {
        List<String> rows = new ArrayList<>();
        table.path("rows").forEach(row -> {
            List<String> cells = new ArrayList<>();
            row.path("cells").forEach(c -> cells.add(c.asText()));
            rows.add(String.join("|", cells));
        });
        return rows;
    }

    private static List<String> itemNames(String list) throws Exception {
        List<String> names = new ArrayList<>();
        JSON.readTree(list).path("items").forEach(i -> names.add(i.path("metadata").path("name").asText()));
        return names;
    }
}
