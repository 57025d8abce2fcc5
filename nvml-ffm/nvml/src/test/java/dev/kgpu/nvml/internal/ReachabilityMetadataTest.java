package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.mock.Json;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GraalVM native images need every FFM downcall descriptor registered at build time. This test reads the
 * descriptors jextract generated into NvmlNative and the ones META-INF/native-image registers, and fails
 * when they differ, so regenerated bindings cannot ship without updated metadata.
 */
class ReachabilityMetadataTest {

    private static final Path BINDINGS = Path.of("src/generated/java/dev/kgpu/nvml/internal/bindings/NvmlNative.java");
    private static final String METADATA = "/META-INF/native-image/dev.kgpu/nvml/reachability-metadata.json";
    private static final Pattern DESCRIPTOR = Pattern.compile(
            "private static class (\\w+) \\{\\s*public static final FunctionDescriptor DESC = FunctionDescriptor\\.(of|ofVoid)\\((.*?)\\);",
            Pattern.DOTALL);
    private static final Map<String, String> CANONICAL = Map.of(
            "C_INT", "int", "C_POINTER", "void*", "C_LONG_LONG", "long long", "C_LONG", "long",
            "C_DOUBLE", "double", "C_CHAR", "char", "C_SHORT", "short", "C_FLOAT", "float", "C_BOOL", "bool");

    @Test
    void metadataRegistersExactlyTheDescriptorsOfTheBindings() throws IOException {
        Set<String> generated = generatedDescriptors();
        Set<String> registered = registeredDescriptors();

        assertThat(generated).as("descriptors in %s", BINDINGS).hasSizeGreaterThan(10);
        assertThat(registered)
                .as("foreign downcalls in %s (regenerated bindings need updated metadata)", METADATA)
                .containsExactlyInAnyOrderElementsOf(generated);
    }

    @Test
    void everyFunctionOfTheBindingsIsNamedAsAReason() throws IOException {
        Set<String> functions = new LinkedHashSet<>();
        Matcher matcher = DESCRIPTOR.matcher(Files.readString(BINDINGS));
        while (matcher.find()) {
            functions.add(matcher.group(1));
        }
        Set<String> reasons = new LinkedHashSet<>();
        for (Object entry : downcalls()) {
            @SuppressWarnings("unchecked") Map<String, Object> downcall = (Map<String, Object>) entry;
            for (Object reason : (List<?>) downcall.get("reason")) {
                reasons.add((String) reason);
            }
        }
        assertThat(reasons).containsExactlyInAnyOrderElementsOf(functions);
    }

    @Test
    void nativeImageInitialisesTheBindingsAtRunTime() throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/native-image/dev.kgpu/nvml/native-image.properties")) {
            assertThat(in).isNotNull();
            String properties = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(properties).contains("--initialize-at-run-time=dev.kgpu.nvml.internal,dev.kgpu.nvml.internal.bindings");
        }
    }

    private static Set<String> generatedDescriptors() throws IOException {
        Set<String> descriptors = new LinkedHashSet<>();
        Matcher matcher = DESCRIPTOR.matcher(Files.readString(BINDINGS));
        while (matcher.find()) {
            List<String> types = new ArrayList<>();
            for (String argument : matcher.group(3).split(",")) {
                String name = argument.strip();
                if (!name.isEmpty()) {
                    String layout = name.substring(name.lastIndexOf('.') + 1);
                    assertThat(CANONICAL).as("layout %s of %s", layout, matcher.group(1)).containsKey(layout);
                    types.add(CANONICAL.get(layout));
                }
            }
            String returnType = matcher.group(2).equals("of") ? types.removeFirst() : "void";
            descriptors.add(returnType + types);
        }
        return descriptors;
    }

    private static Set<String> registeredDescriptors() throws IOException {
        Set<String> descriptors = new LinkedHashSet<>();
        for (Object entry : downcalls()) {
            @SuppressWarnings("unchecked") Map<String, Object> downcall = (Map<String, Object>) entry;
            descriptors.add(downcall.get("returnType") + String.valueOf(downcall.get("parameterTypes")));
        }
        return descriptors;
    }

    private static List<?> downcalls() throws IOException {
        try (InputStream in = ReachabilityMetadataTest.class.getResourceAsStream(METADATA)) {
            assertThat(in).as(METADATA).isNotNull();
            @SuppressWarnings("unchecked") Map<String, Object> root =
                    (Map<String, Object>) Json.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            @SuppressWarnings("unchecked") Map<String, Object> foreign = (Map<String, Object>) root.get("foreign");
            return (List<?>) foreign.get("downcalls");
        }
    }
}
