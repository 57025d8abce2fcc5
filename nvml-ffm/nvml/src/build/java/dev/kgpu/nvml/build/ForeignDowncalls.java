package dev.kgpu.nvml.build;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.MethodModel;
import java.lang.classfile.constantpool.MemberRefEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.constantpool.StringEntry;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.Opcode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Writes native-image's foreign downcall metadata for the NVML functions the nvml module actually calls, read from its
 * compiled classes: no hand list to keep in step with the bindings.
 *
 * <ol>
 *   <li>The callers are every class outside the jextract bindings package ({@value #BINDINGS}). A binding is called
 *       when a caller's constant pool refers to a method of {@code NvmlNative} named after a function the bindings
 *       define: {@code nvmlX} (a call or a method reference), {@code nvmlX$handle} or {@code nvmlX$descriptor}.</li>
 *   <li>A function's shape is read from the static initialiser of jextract's holder class {@code NvmlNative$nvmlX}:
 *       the {@code C_*} layouts it passes to {@code FunctionDescriptor.of}/{@code ofVoid}, in order. Each {@code C_*}
 *       layout's C name is the one {@code NvmlNative$shared} asks {@code Linker.canonicalLayouts()} for.</li>
 *   <li>Functions of one shape share one entry (the top-level comment lists them); the file is sorted, so the same
 *       classes give the same bytes.</li>
 * </ol>
 *
 * <p>Run by the nvml module's build in {@code process-classes}, as a single source file:
 * {@code java ForeignDowncalls.java <classes> <reachability-metadata.json>}. Anything it cannot read (a binding
 * whose descriptor is not built from {@code C_*} layouts) stops the build with one line naming it.
 */
public final class ForeignDowncalls {

    static final String BINDINGS = "dev/kgpu/nvml/internal/bindings/";
    static final String NATIVE = BINDINGS + "NvmlNative";
    static final String SHARED = NATIVE + "$shared";

    private ForeignDowncalls() {
    }

    /** One downcall shape: C names of the return type ({@code void} for none) and of the parameters. */
    record Shape(String returnType, List<String> parameterTypes) implements Comparable<Shape> {
        @Override
        public int compareTo(Shape other) {
            return key().compareTo(other.key());
        }

        private String key() {
            return String.format("%03d %s %s", parameterTypes.size(), parameterTypes, returnType);
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: java ForeignDowncalls.java <classes folder> <reachability-metadata.json>");
            System.exit(2);
        }
        Path classes = Path.of(args[0]);
        Path out = Path.of(args[1]);
        try {
            SortedMap<Shape, SortedSet<String>> shapes = shapes(classes);
            Files.createDirectories(out.getParent());
            Files.writeString(out, json(shapes), StandardCharsets.UTF_8);
            System.out.println("ForeignDowncalls: " + shapes.values().stream().mapToInt(Set::size).sum()
                    + " NVML functions called, " + shapes.size() + " downcall shapes -> " + out);
        } catch (IllegalStateException e) {
            System.err.println("ForeignDowncalls: " + e.getMessage());
            System.exit(1);
        }
    }

    /** The shapes of every binding the classes under {@code classes} call, each with the functions that have it. */
    static SortedMap<Shape, SortedSet<String>> shapes(Path classes) throws IOException {
        Map<String, String> layouts = layoutNames(read(classes.resolve(SHARED + ".class")));
        SortedMap<Shape, SortedSet<String>> shapes = new TreeMap<>();
        for (String function : calledFunctions(classes)) {
            Shape shape = shape(read(classes.resolve(NATIVE + "$" + function + ".class")), layouts, function);
            shapes.computeIfAbsent(shape, s -> new TreeSet<>()).add(function);
        }
        return shapes;
    }

    /** The functions of the bindings that classes outside the bindings package refer to. */
    static SortedSet<String> calledFunctions(Path classes) throws IOException {
        Set<String> functions;
        Path bindings = classes.resolve(BINDINGS);
        try (Stream<Path> files = Files.exists(bindings) ? Files.list(bindings) : Stream.empty()) {
            String prefix = "NvmlNative$";
            functions = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith(prefix) && n.endsWith(".class"))
                    .map(n -> n.substring(prefix.length(), n.length() - ".class".length()))
                    .filter(n -> !n.equals("shared") && !n.contains("$"))
                    .collect(Collectors.toSet());
        }
        SortedSet<String> called = new TreeSet<>();
        List<Path> callers;
        try (Stream<Path> files = Files.walk(classes)) {
            callers = files.filter(p -> p.toString().endsWith(".class"))
                    .filter(p -> !classes.relativize(p).toString().replace('\\', '/').startsWith(BINDINGS))
                    .sorted().toList();
        }
        for (Path caller : callers) {
            for (PoolEntry entry : read(caller).constantPool()) {
                if (entry instanceof MemberRefEntry ref && ref.owner().asInternalName().equals(NATIVE)) {
                    String name = ref.name().stringValue();
                    String function = name.replaceFirst("\\$(handle|descriptor)$", "");
                    if (functions.contains(function)) {
                        called.add(function);
                    }
                }
            }
        }
        return called;
    }

    /** {@code C_INT -> int}, ...: the name each {@code C_*} field of the shared class asks the linker for. */
    static Map<String, String> layoutNames(ClassModel shared) {
        Map<String, String> names = new TreeMap<>();
        String pending = null;
        boolean askingLinker = false;
        for (CodeElement element : staticInitialiser(shared, SHARED)) {
            if (element instanceof InvokeInstruction invoke && invoke.name().equalsString("canonicalLayouts")) {
                askingLinker = true;
            } else if (askingLinker && element instanceof ConstantInstruction.LoadConstantInstruction ldc
                    && ldc.constantEntry() instanceof StringEntry string) {
                pending = string.stringValue();
                askingLinker = false;
            } else if (element instanceof FieldInstruction field && field.opcode() == Opcode.PUTSTATIC
                    && field.name().stringValue().startsWith("C_")) {
                if (pending == null) {
                    throw new IllegalStateException(SHARED + "." + field.name().stringValue()
                            + " is not a layout the linker names (Linker.canonicalLayouts)");
                }
                names.put(field.name().stringValue(), pending);
                pending = null;
            }
        }
        if (names.isEmpty()) {
            throw new IllegalStateException(SHARED + " defines no C_* layouts");
        }
        return names;
    }

    /** The shape {@code FunctionDescriptor.of/ofVoid} is built with in the holder class's static initialiser. */
    static Shape shape(ClassModel holder, Map<String, String> layouts, String function) {
        List<String> types = new ArrayList<>();
        for (CodeElement element : staticInitialiser(holder, function)) {
            if (element instanceof FieldInstruction field && field.opcode() == Opcode.GETSTATIC
                    && field.name().stringValue().startsWith("C_")) {
                String layout = field.name().stringValue();
                String name = layouts.get(layout);
                if (name == null) {
                    throw new IllegalStateException(function + " uses layout " + layout + ", which " + SHARED + " does not name");
                }
                types.add(name);
            } else if (element instanceof InvokeInstruction invoke
                    && invoke.owner().asInternalName().equals("java/lang/foreign/FunctionDescriptor")) {
                String method = invoke.name().stringValue();
                if (method.equals("of") && !types.isEmpty()) {
                    return new Shape(types.getFirst(), List.copyOf(types.subList(1, types.size())));
                }
                if (method.equals("ofVoid")) {
                    return new Shape("void", List.copyOf(types));
                }
                break;
            } else if (element instanceof InvokeInstruction || element instanceof FieldInstruction f && f.opcode() == Opcode.GETSTATIC) {
                throw new IllegalStateException(function + "'s descriptor is built from more than C_* layouts ("
                        + element + "): a struct by value or a variadic call needs this generator extended");
            }
        }
        throw new IllegalStateException(function + " builds no FunctionDescriptor in " + holder.thisClass().asInternalName());
    }

    private static List<CodeElement> staticInitialiser(ClassModel model, String what) {
        Optional<MethodModel> clinit = model.methods().stream().filter(m -> m.methodName().equalsString("<clinit>")).findFirst();
        return clinit.flatMap(MethodModel::code).map(code -> code.elementList())
                .orElseThrow(() -> new IllegalStateException(what + ": " + model.thisClass().asInternalName() + " has no static initialiser"));
    }

    private static ClassModel read(Path file) {
        try {
            return ClassFile.of().parse(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * reachability-metadata.json with a {@code foreign.downcalls} entry per shape. Native-image accepts no other
     * attribute in an entry, so the functions of each shape are listed in the top-level comment, one line per
     * shape: {@code int(void*, int): nvmlSystemGetDriverVersion, nvmlSystemGetNVMLVersion}.
     */
    static String json(SortedMap<Shape, SortedSet<String>> shapes) {
        StringBuilder out = new StringBuilder();
        out.append("{\n  \"comment\": [\n    \"Generated by the nvml module's build (src/build/java/dev/kgpu/nvml/build/ForeignDowncalls.java) from the ")
                .append("NvmlNative functions its classes call; do not edit. One downcall per shape; the functions of each:\"");
        for (Map.Entry<Shape, SortedSet<String>> entry : shapes.entrySet()) {
            out.append(",\n    ").append(quote(entry.getKey().returnType() + "(" + String.join(", ", entry.getKey().parameterTypes())
                    + "): " + String.join(", ", entry.getValue())));
        }
        out.append("\n  ],\n  \"foreign\": {\n    \"downcalls\": [");
        String separator = "\n";
        for (Shape shape : shapes.keySet()) {
            out.append(separator).append("      {\"returnType\": ").append(quote(shape.returnType()))
                    .append(", \"parameterTypes\": ").append(strings(shape.parameterTypes())).append("}");
            separator = ",\n";
        }
        out.append(shapes.isEmpty() ? "]\n" : "\n    ]\n").append("  }\n}\n");
        return out.toString();
    }

    private static String strings(Iterable<String> values) {
        List<String> quoted = new ArrayList<>();
        values.forEach(v -> quoted.add(quote(v)));
        return "[" + String.join(", ", quoted) + "]";
    }

    private static String quote(String value) {
        if (!value.matches("[A-Za-z0-9_ *(),:]*")) {
            throw new IllegalStateException("unexpected name in the metadata: " + value);
        }
        return "\"" + value + "\"";
    }
}
