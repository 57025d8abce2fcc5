package dev.kgpu.nvml.mock;

import dev.kgpu.nvml.NvmlReturnCode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Test control of kgpu's mock {@code libnvidia-ml.so.1} (nvml-ffm/nvml/mock): selects the simulated node,
 * injects health events and makes chosen NVML functions fail. It calls the mock's test-only exports
 * ({@code mockNvmlSetProfile}, {@code mockNvmlInjectXid}, ...) through FFM on the same library file that
 * {@code Nvml.open()} loads, which the dynamic loader shares, so the changes reach kgpu's NVML calls.
 *
 * <p>Main code of the nvml module, for the agents' tests, the simulated cluster and the tools; the agents' own
 * main code never uses it. With {@code KGPU_NVML_LIBRARY} set by the parent POM's surefire configuration:
 * {@snippet :
 * MockNvml mock = MockNvml.load();
 * mock.useProfile("dgx-a100");          // before Nvml.open(): handles from an older profile go stale
 * try (Nvml nvml = Nvml.open()) {
 *     mock.injectXid(nvml.device(0).uuid(), 79);
 * }
 * mock.reset();
 * }
 *
 * <p>The mock's state is process-wide, so tests that use it must not run in parallel with each other;
 * call {@link #reset()} after each test.
 *
 * <p>Thread-safety: the calls are thread-safe (the mock locks), but the state they change is shared by the
 * whole process.
 */
public final class MockNvml {

    private static final Linker LINKER = Linker.nativeLinker();

    private final Path library;
    private final MethodHandle setProfile;
    private final MethodHandle lastError;
    private final MethodHandle injectXid;
    private final MethodHandle injectEcc;
    private final MethodHandle setWalk;
    private final MethodHandle failNext;
    private final MethodHandle clearFailures;
    private final MethodHandle reset;
    private final MethodHandle parseEventLine;

    private MockNvml(Path library) {
        this.library = library;
        SymbolLookup symbols = SymbolLookup.libraryLookup(library, Arena.global());
        ValueLayout.OfInt cInt = ValueLayout.JAVA_INT;
        ValueLayout.OfLong cLong = ValueLayout.JAVA_LONG;
        var pointer = ValueLayout.ADDRESS;
        this.setProfile = handle(symbols, "mockNvmlSetProfile", FunctionDescriptor.of(cInt, pointer));
        this.lastError = handle(symbols, "mockNvmlLastError",
                FunctionDescriptor.of(pointer.withTargetLayout(java.lang.foreign.MemoryLayout.sequenceLayout(4096, ValueLayout.JAVA_BYTE))));
        this.injectXid = handle(symbols, "mockNvmlInjectXid", FunctionDescriptor.of(cInt, pointer, cLong));
        this.injectEcc = handle(symbols, "mockNvmlInjectEcc", FunctionDescriptor.of(cInt, pointer, cInt));
        this.setWalk = handle(symbols, "mockNvmlSetWalk", FunctionDescriptor.of(cInt, cInt));
        this.failNext = handle(symbols, "mockNvmlFailNext", FunctionDescriptor.of(cInt, pointer, cInt, cInt));
        this.clearFailures = handle(symbols, "mockNvmlClearFailures", FunctionDescriptor.ofVoid());
        this.reset = handle(symbols, "mockNvmlReset", FunctionDescriptor.ofVoid());
        this.parseEventLine = handle(symbols, "mockNvmlParseEventLine", FunctionDescriptor.of(cInt, pointer));
    }

    private static MethodHandle handle(SymbolLookup symbols, String name, FunctionDescriptor descriptor) {
        MemorySegment address = symbols.find(name).orElseThrow(() -> new IllegalStateException(
                "the NVML library has no '" + name + "': is KGPU_NVML_LIBRARY the mock (nvml-ffm/nvml/target/mock)?"));
        return LINKER.downcallHandle(address, descriptor);
    }

    /** The mock named by {@code KGPU_NVML_LIBRARY}, as the parent POM's surefire configuration sets it. */
    public static MockNvml load() {
        String path = System.getenv("KGPU_NVML_LIBRARY");
        if (path == null || path.isBlank()) {
            throw new IllegalStateException("KGPU_NVML_LIBRARY was '" + path
                    + "' but it must name the mock library (nvml-ffm/nvml/target/mock/libnvidia-ml.so.1)");
        }
        return load(Path.of(path));
    }

    /** The mock at {@code library}. */
    public static MockNvml load(Path library) {
        Objects.requireNonNull(library, "library");
        if (!Files.isRegularFile(library)) {
            throw new IllegalStateException("mock NVML library was '" + library
                    + "' but no such file exists; build it with ./mvnw -pl nvml-ffm/nvml generate-resources");
        }
        return new MockNvml(library);
    }

    /** The file named by {@code MOCK_NVML_EVENTS}, whose appended lines the mock delivers as events, if set. */
    public static java.util.Optional<Path> eventsFile() {
        String path = System.getenv("MOCK_NVML_EVENTS");
        return path == null || path.isBlank() ? java.util.Optional.empty() : java.util.Optional.of(Path.of(path));
    }

    /**
     * Appends {@code xid <uuid> <xid>} to the {@link #eventsFile()}, the way an operator or a simulated node
     * would; the mock delivers it within 100 ms.
     */
    public static void appendXidToEventsFile(String uuid, long xid) {
        appendToEventsFile("xid " + uuid + " " + xid);
    }

    /** Appends one line to the {@link #eventsFile()}. */
    public static void appendToEventsFile(String line) {
        Path file = eventsFile().orElseThrow(() -> new IllegalStateException(
                "MOCK_NVML_EVENTS is unset: set it in the test's surefire environment to a file under target/"));
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, line + "\n", java.nio.charset.StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("could not append to " + file, e);
        }
    }

    /** The library file this controls. */
    public Path library() {
        return library;
    }

    /**
     * The folder of the shipped profiles ({@code rtx3060.json}, {@code dgx-a100.json}, ...), from
     * {@code KGPU_MOCK_PROFILES} (set by the parent POM) or found by walking up from the working directory.
     */
    public static Path profilesDir() {
        String fromEnvironment = System.getenv("KGPU_MOCK_PROFILES");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return Path.of(fromEnvironment);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("nvml-ffm/nvml/mock/profiles");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("KGPU_MOCK_PROFILES is unset and no nvml-ffm/nvml/mock/profiles folder lies above "
                + Path.of("").toAbsolutePath());
    }

    /** The shipped profile {@code name} (e.g. {@code dgx-a100}), parsed, so tests can compare against it. */
    public static MockProfile profile(String name) {
        Path file = profilesDir().resolve(name + ".json");
        try {
            return MockProfile.parse(name, Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("could not read mock profile " + file, e);
        }
    }

    /**
     * Simulates the node of profile {@code nameOrPath} (a shipped name or a path to a {@code .json} file) from
     * now on. Device handles taken before become invalid: open {@code Nvml} afterwards.
     */
    public void useProfile(String nameOrPath) {
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) setProfile.invokeExact(arena.allocateFrom(nameOrPath));
            if (rc != 0) {
                throw new IllegalStateException("mock NVML refused profile '" + nameOrPath + "': " + lastError());
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Delivers a critical XID on a GPU (or, with a {@code MIG-} UUID, on its parent with GI/CI ids). */
    public void injectXid(String uuid, long xid) {
        check(callWithString(injectXid, uuid, xid, 0, 1), "inject XID " + xid + " on " + uuid);
    }

    /** Delivers an ECC event on a GPU; {@code doubleBit} for an uncorrectable error. */
    public void injectEcc(String uuid, boolean doubleBit) {
        check(callWithString(injectEcc, uuid, 0, doubleBit ? 1 : 0, 2), "inject ECC on " + uuid);
    }

    /** Stops the telemetry walk: every read returns the same values until {@link #resumeTelemetry()}. */
    public void freezeTelemetry() {
        walk(0);
    }

    /** Lets the telemetry walk move again. */
    public void resumeTelemetry() {
        walk(1);
    }

    private void walk(int enabled) {
        try {
            check((int) setWalk.invokeExact(enabled), "set walk " + enabled);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The next {@code times} calls of NVML function {@code function} (its C name, e.g.
     * {@code nvmlDeviceGetUUID} or {@code nvmlInit_v2}) return {@code code}; {@code times < 0} until
     * {@link #clearFailures()}.
     */
    public void failNext(String function, NvmlReturnCode code, int times) {
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) failNext.invokeExact(arena.allocateFrom(function), code.value(), times);
            check(rc, "fail " + function);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every function succeeds again. */
    public void clearFailures() {
        try {
            clearFailures.invokeExact();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Back to the profile named by the environment, no failures, the profile's walk. */
    public void reset() {
        try {
            reset.invokeExact();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Parses one events-file line (no line break) with the mock's own parser, delivering nothing: 1 an event,
     * 0 a blank or comment line, -1 a line the mock would skip ({@link #lastError()} says why).
     */
    public int parseEventLine(String line) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) parseEventLine.invokeExact(arena.allocateFrom(line));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** The mock's text for its last control error. */
    public String lastError() {
        try {
            MemorySegment text = (MemorySegment) lastError.invokeExact();
            return text.equals(MemorySegment.NULL) ? "" : text.getString(0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private static int callWithString(MethodHandle handle, String text, long longArgument, int intArgument, int kind) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cText = arena.allocateFrom(text);
            return kind == 1 ? (int) handle.invokeExact(cText, longArgument) : (int) handle.invokeExact(cText, intArgument);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException("mock NVML could not " + what + ": " + lastError());
        }
    }
}
