package dev.kgpu.agent.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The FFM downcall shapes a module registers for native-image (the {@code foreign.downcalls} of its
 * {@code META-INF/native-image/<group>/<artifact>/reachability-metadata.json}), and the same words for a
 * {@link FunctionDescriptor} the code links: a native executable links a downcall only if its shape is registered, so
 * each module's test compares the two. A shape reads {@code int[void*, long long, int] errno=false}, and a variadic
 * one {@code int[void*, int] errno=false variadic from 2}. Stateless.
 */
public final class ForeignDowncalls {

    private static final Map<MemoryLayout, String> C_TYPES = Map.of(ValueLayout.JAVA_INT, "int",
            ValueLayout.JAVA_LONG, "long long", ValueLayout.ADDRESS, "void*");

    private ForeignDowncalls() {
    }

    /** The shapes registered in the metadata file at class-path resource {@code metadata}; fails when it is missing. */
    public static List<String> registered(String metadata) throws IOException {
        JsonNode root;
        try (InputStream in = ForeignDowncalls.class.getResourceAsStream(metadata)) {
            if (in == null) {
                throw new AssertionError(metadata + " is not on the class path");
            }
            root = new ObjectMapper().readTree(in);
        }
        List<String> registered = new ArrayList<>();
        for (JsonNode downcall : root.path("foreign").path("downcalls")) {
            List<String> parameters = new ArrayList<>();
            downcall.path("parameterTypes").forEach(p -> parameters.add(p.asText()));
            JsonNode options = downcall.path("options");
            registered.add(downcall.path("returnType").asText() + parameters + " errno="
                    + options.path("captureCallState").asBoolean(false)
                    + (options.has("firstVariadicArg") ? " variadic from " + options.path("firstVariadicArg").asInt() : ""));
        }
        return registered;
    }

    /** {@code descriptor} in the metadata's words, linked with {@code errno} captured or not. */
    public static String shape(FunctionDescriptor descriptor, boolean errno) {
        List<String> parameters = descriptor.argumentLayouts().stream().map(l -> C_TYPES.get(l.withoutName())).toList();
        return C_TYPES.get(descriptor.returnLayout().orElseThrow().withoutName()) + parameters + " errno=" + errno;
    }

    /** {@code descriptor} of a variadic function linked with {@code Linker.Option.firstVariadicArg(firstVariadic)}. */
    public static String variadicShape(FunctionDescriptor descriptor, int firstVariadic) {
        return shape(descriptor, false) + " variadic from " + firstVariadic;
    }
}
