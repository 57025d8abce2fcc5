package dev.kgpu.nvml.internal;

import dev.kgpu.nvml.NvmlOptions;
import dev.kgpu.nvml.internal.bindings.NvmlNative;
import dev.kgpu.nvml.mock.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GraalVM native images need every FFM downcall shape registered at build time; a missing one fails only at run
 * time, in {@code Linker.downcallHandle}. the nvml module's build generates the registration
 * ({@code src/build/java/.../ForeignDowncalls.java}, in {@code process-classes}) from the bindings its classes call.
 * These tests check what was packaged against readings of their own: the calls in the hand-written sources and the
 * descriptors the bindings build at run time on the mock library.
 */
class ReachabilityMetadataTest {

    private static final String METADATA = "/META-INF/native-image/dev.kgpu/nvml/reachability-metadata.json";
    private static final Path GENERATOR = Path.of("src/build/java/dev/kgpu/nvml/build/ForeignDowncalls.java");
    private static final Path CLASSES = Path.of("target/classes");
    /** A binding used in hand-written code: a call {@code NvmlNative.f(}, a method reference or a handle. */
    private static final Pattern CALL = Pattern.compile("NvmlNative(?:\\.|::)(nvml\\w+?)(?:\\$handle|\\$descriptor)?\\b(?!\\$)");

    @Test
    void everyBindingTheHandWrittenCodeCallsIsRegisteredWithItsRunTimeDescriptor() throws Exception {
        NvmlLibrary.load(NvmlOptions.fromEnvironment(System::getenv));
        List<FunctionDescriptor> registered = new ArrayList<>();
        for (Map<String, Object> downcall : downcalls(packagedMetadata())) {
            registered.add(descriptor(downcall));
        }
        Set<String> called = calledInSources();
        assertThat(called).as("NVML functions called in src/main/java").hasSizeGreaterThan(40);

        List<String> missing = new ArrayList<>();
        for (String function : called) {
            FunctionDescriptor descriptor = normalised((FunctionDescriptor) NvmlNative.class.getMethod(function + "$descriptor").invoke(null));
            if (!registered.contains(descriptor)) {
                missing.add(function + " " + descriptor);
            }
        }
        assertThat(missing).as("bindings called but not registered in %s", METADATA).isEmpty();
    }

    @Test
    void thePackagedMetadataIsWhatTheGeneratorWritesForTheseClasses(@TempDir Path dir) throws Exception {
        Path fresh = generate(CLASSES, dir.resolve("fresh.json"));

        assertThat(packagedMetadata()).isEqualTo(Files.readString(fresh));
        Set<String> named = new TreeSet<>();
        functionsByShape(packagedMetadata()).values().forEach(named::addAll);
        assertThat(named).as("functions named in the packaged metadata").isEqualTo(calledInSources());
    }

    @Test
    void theGeneratorRegistersWhatTheClassesItReadsCallAndNothingElse(@TempDir Path dir) throws Exception {
        Path classes = dir.resolve("classes");
        for (String binding : List.of("NvmlNative$shared", "NvmlNative$nvmlDeviceGetP2PStatus", "NvmlNative$nvmlDeviceGetCount_v2",
                "NvmlNative$nvmlErrorString")) {
            Path file = classes.resolve("dev/kgpu/nvml/internal/bindings/" + binding + ".class");
            Files.createDirectories(file.getParent());
            Files.copy(CLASSES.resolve("dev/kgpu/nvml/internal/bindings/" + binding + ".class"), file);
        }

        assertThat(downcalls(Files.readString(generate(classes, dir.resolve("none.json"))))).as("no caller, no downcall").isEmpty();

        // one class that calls nvmlDeviceGetP2PStatus, one that takes nvmlErrorString's handle
        writeCaller(classes, "Caller", "nvmlDeviceGetP2PStatus",
                MethodTypeDesc.ofDescriptor("(Ljava/lang/foreign/MemorySegment;Ljava/lang/foreign/MemorySegment;ILjava/lang/foreign/MemorySegment;)I"));
        writeCaller(classes, "HandleUser", "nvmlErrorString$handle",
                MethodTypeDesc.ofDescriptor("()Ljava/lang/invoke/MethodHandle;"));
        String json = Files.readString(generate(classes, dir.resolve("two.json")));
        List<Map<String, Object>> downcalls = downcalls(json);

        assertThat(downcalls).containsExactly(
                Map.of("returnType", "void*", "parameterTypes", List.of("int")),
                Map.of("returnType", "int", "parameterTypes", List.of("void*", "void*", "int", "void*")));
        assertThat(functionsByShape(json)).containsExactly(Map.entry("void*(int)", List.of("nvmlErrorString")),
                Map.entry("int(void*, void*, int, void*)", List.of("nvmlDeviceGetP2PStatus")));
    }

    @Test
    void nativeImageInitialisesTheBindingsAtRunTime() throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/native-image/dev.kgpu/nvml/native-image.properties")) {
            assertThat(in).isNotNull();
            String properties = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(properties).contains("--initialize-at-run-time=dev.kgpu.nvml.internal,dev.kgpu.nvml.internal.bindings");
        }
    }

    /** The bindings named in src/main/java, read from the sources (the generator reads the class files). */
    private static Set<String> calledInSources() throws IOException {
        Set<String> called = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher matcher = CALL.matcher(Files.readString(file));
                while (matcher.find()) {
                    called.add(matcher.group(1));
                }
            }
        }
        // constants (nvmlEventTypeXidCriticalError() ...) are methods of NvmlNative too, but no downcall
        called.removeIf(name -> {
            try {
                NvmlNative.class.getMethod(name + "$descriptor");
                return false;
            } catch (NoSuchMethodException e) {
                return true;
            }
        });
        return called;
    }

    /** A registered entry as the linker's layouts: canonical C names looked up as native-image looks them up. */
    private static FunctionDescriptor descriptor(Map<String, Object> downcall) {
        Map<String, MemoryLayout> canonical = Linker.nativeLinker().canonicalLayouts();
        List<MemoryLayout> parameters = new ArrayList<>();
        for (String type : strings(downcall.get("parameterTypes"))) {
            parameters.add(Optional.ofNullable(canonical.get(type)).orElseThrow(() -> new AssertionError("unknown C type " + type)));
        }
        String returnType = (String) downcall.get("returnType");
        MemoryLayout[] array = parameters.toArray(MemoryLayout[]::new);
        return normalised(returnType.equals("void") ? FunctionDescriptor.ofVoid(array) : FunctionDescriptor.of(canonical.get(returnType), array));
    }

    /** Without layout names and pointer target layouts, which do not change the call. */
    private static FunctionDescriptor normalised(FunctionDescriptor descriptor) {
        MemoryLayout[] parameters = descriptor.argumentLayouts().stream().map(ReachabilityMetadataTest::plain).toArray(MemoryLayout[]::new);
        return descriptor.returnLayout().map(r -> FunctionDescriptor.of(plain(r), parameters)).orElseGet(() -> FunctionDescriptor.ofVoid(parameters));
    }

    private static MemoryLayout plain(MemoryLayout layout) {
        MemoryLayout unnamed = layout.withoutName();
        return unnamed instanceof AddressLayout address ? address.withoutTargetLayout() : unnamed;
    }

    /** A class {@code dev.kgpu.<name>} whose one method calls {@code NvmlNative.<method>} (with zeros and nulls). */
    private static void writeCaller(Path classes, String name, String method, MethodTypeDesc type) throws IOException {
        byte[] bytes = ClassFile.of().build(ClassDesc.of("dev.kgpu." + name), clazz -> clazz
                .withMethodBody("call", MethodTypeDesc.of(ConstantDescs.CD_void), ClassFile.ACC_STATIC, code -> {
                    for (ClassDesc parameter : type.parameterList()) {
                        if (parameter.isPrimitive()) {
                            code.iconst_0();
                        } else {
                            code.aconst_null();
                        }
                    }
                    code.invokestatic(ClassDesc.of("dev.kgpu.nvml.internal.bindings.NvmlNative"), method, type);
                    code.pop();
                    code.return_();
                }));
        Path file = classes.resolve("dev/kgpu/" + name + ".class");
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
    }

    /** Runs the generator as the build does (a single source file) and returns what it wrote. */
    private static Path generate(Path classes, Path out) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                GENERATOR.toString(), classes.toString(), out.toString()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the generator ended").isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return out;
    }

    private static String packagedMetadata() throws IOException {
        try (InputStream in = ReachabilityMetadataTest.class.getResourceAsStream(METADATA)) {
            assertThat(in).as(METADATA).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The comment's lines {@code int(void*, int): f, g} as shape to functions, in order. */
    @SuppressWarnings("unchecked")
    private static Map<String, List<String>> functionsByShape(String json) {
        Map<String, List<String>> functions = new LinkedHashMap<>();
        for (Object line : (List<Object>) ((Map<String, Object>) Json.parse(json)).get("comment")) {
            Matcher matcher = Pattern.compile("(\\S+\\(.*\\)): (.+)").matcher((String) line);
            if (matcher.matches()) {
                functions.put(matcher.group(1), List.of(matcher.group(2).split(", ")));
            }
        }
        return functions;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> downcalls(String json) {
        Map<String, Object> root = (Map<String, Object>) Json.parse(json);
        Map<String, Object> foreign = (Map<String, Object>) root.get("foreign");
        List<Map<String, Object>> downcalls = new ArrayList<>();
        for (Object entry : (List<?>) foreign.get("downcalls")) {
            downcalls.add(new LinkedHashMap<>((Map<String, Object>) entry));
        }
        return downcalls;
    }

    private static List<String> strings(Object list) {
        List<String> strings = new ArrayList<>();
        for (Object item : (List<?>) list) {
            strings.add((String) item);
        }
        return strings;
    }
}
