package dev.kgpu.cdi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.kgpu.cdi.NvidiaCdiGenerator.NameStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Generated specs against the CDI project's published JSON schema ({@code schema/schema.json} + {@code defs.json}). */
class CdiSpecSchemaTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonSchema SCHEMA = JsonSchemaFactory
            .getInstance(SpecVersion.VersionFlag.V7, builder -> builder.schemaMappers(mappers ->
                    mappers.mapPrefix("https://kgpu.test/cdi/", "classpath:cdi/schema/")))
            .getSchema(SchemaLocation.of("https://kgpu.test/cdi/schema.json"));

    @TempDir
    Path root;

    static Set<ValidationMessage> validate(String json) throws Exception {
        JsonNode document = JSON.readTree(json);
        return SCHEMA.validate(document);
    }

    @ParameterizedTest
    @CsvSource({"dgx-a100,UUID", "dgx-a100,INDEX", "mig-mixed,INDEX", "h100-mig,UUID", "rtx3060,TYPE_INDEX", "large-256,UUID"})
    void generatedSpecsAreValidCdi(String profile, NameStrategy strategy) throws Exception {
        CdiTestNodes.Node node = CdiTestNodes.simulated(profile, root);
        CdiSpec spec = NvidiaCdiGenerator.generate(CdiTestNodes.options(root, strategy).withNames(List.of(strategy), true),
                node.driverVersion(), node.gpus());

        assertThat(validate(CdiJson.write(spec))).isEmpty();
    }

    @Test
    void theSchemaCatchesWhatTheCdiLibraryRejects() throws Exception {
        assertThat(validate("{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.com/b\",\"devices\":[{\"name\":\"x\"}]}"))
                .extracting(ValidationMessage::getMessage).anyMatch(m -> m.contains("containerEdits"));
        assertThat(validate("{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.com/b\",\"devices\":[{\"name\":\"x\","
                + "\"containerEdits\":{\"deviceNodes\":[{\"hostPath\":\"/dev/x\"}]}}]}"))
                .extracting(ValidationMessage::getMessage).anyMatch(m -> m.contains("path"));
    }

    @Test
    void everyOptionalFieldTheModelWritesIsOneTheSchemaKnows() throws Exception {
        CdiSpec.ContainerEdits edits = new CdiSpec.ContainerEdits(List.of("A=1"),
                List.of(new CdiSpec.DeviceNode("/dev/x", Optional.of("/host/dev/x"), Optional.of("c"),
                        java.util.OptionalLong.of(195), java.util.OptionalLong.of(1), java.util.OptionalLong.of(0660),
                        Optional.of("rw"), java.util.OptionalLong.of(0), java.util.OptionalLong.of(44))),
                List.of(new CdiSpec.Hook("createContainer", "/bin/hook", List.of("hook", "a"), List.of("B=2"),
                        java.util.OptionalInt.of(5))),
                List.of(new CdiSpec.Mount("/a", "/b", List.of("ro"), Optional.of("bind"))),
                Optional.of(new CdiSpec.IntelRdt(Optional.of("c"), Optional.of("L3:0=f"), Optional.of("MB:0=100"),
                        List.of("L3:0=f"), true)),
                List.of(44L), List.of(new CdiSpec.NetDevice("eth1", "net0")));
        CdiSpec spec = new CdiSpec("1.1.0", "vendor.com/class", Map.of("a", "b"),
                List.of(new CdiSpec.Device("d", Map.of("k", "v"), edits)), edits);

        assertThat(validate(CdiJson.write(spec))).isEmpty();
        assertThat(CdiVersion.minimumFor(spec)).isEqualTo("1.1.0");
    }
}
