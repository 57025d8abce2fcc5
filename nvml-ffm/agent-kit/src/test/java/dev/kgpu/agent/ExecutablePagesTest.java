package dev.kgpu.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kgpu.agent.testing.ForeignDowncalls;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ExecutablePagesTest {

    private static final int PAGE = 4096;

    @Test
    void findsEveryMappingOfTheFileAndNothingElse() {
        String maps = """
                00400000-00405000 r--p 00000000 fe:00 2261402                            /opt/kgpu/plugin
                00410000-0276a000 r-xp 00010000 fe:00 2261402                            /opt/kgpu/plugin
                0276a000-02770000 rw-p 00000000 00:00 0
                7fe738000000-7fe7390cb000 rw-p 03730000 fe:00 2261402                    /opt/kgpu/plugin
                7fe7390cb000-7fe739d40000 r--p 047fb000 fe:00 2261402                    /opt/kgpu/plugin (deleted)
                7fef36c9e000-7fef36df4000 r-xp 00026000 fe:00 2261351                    /usr/lib/x86_64-linux-gnu/libc.so.6
                7fef36e00000-7fef36e01000 r--p 00000000 fe:00 2261403                    /opt/kgpu/plugin two
                7ffd1c9e2000-7ffd1ca03000 rw-p 00000000 00:00 0                          [stack]
                """;

        assertThat(ExecutablePages.mappings(maps, "/opt/kgpu/plugin")).containsExactly(
                new ExecutablePages.Mapping(0x400000L, 0x405000L),
                new ExecutablePages.Mapping(0x410000L, 0x276a000L),
                new ExecutablePages.Mapping(0x7fe738000000L, 0x7fe7390cb000L));
        assertThat(ExecutablePages.mappings(maps, "/opt/kgpu/plugin two"))
                .containsExactly(new ExecutablePages.Mapping(0x7fef36e00000L, 0x7fef36e01000L));
        assertThat(ExecutablePages.mappings(maps, "/opt/kgpu/exporter")).isEmpty();
    }

    @Test
    void readsTheResidentSetFromTheStatusFile() {
        assertThat(ExecutablePages.residentKiB("Name:\tplugin\nVmHWM:\t   60000 kB\nVmRSS:\t   59788 kB\nRssAnon:\t    8924 kB\n"))
                .isEqualTo(59788);
        assertThat(ExecutablePages.residentKiB("Name:\tplugin\n")).isEqualTo(-1);
    }

    /**
     * The advice really reaches the kernel: a file mapped and read by this process is resident, and after
     * {@code pageOut} over its mapping (found in this process's own maps) its clean pages no longer are.
     */
    @Test
    void pagingOutAMappedFileTakesItsPagesOutOfThisProcesssMemory() throws IOException {
        // on disk, not tmpfs (a tmpfs page has nowhere to go without swap): the module's build folder
        Path file = Files.createTempFile(Path.of("target").toAbsolutePath(), "executable-pages", ".bin");
        try {
            int pages = 1024;
            byte[] content = new byte[pages * PAGE];
            new Random(7).nextBytes(content);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(content));
                channel.force(true); // clean pages: a dirty one would have to be written back first
            }
            String path = file.toRealPath().toString();
            try (Arena arena = Arena.ofConfined();
                 FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, content.length, arena);
                long sum = 0;
                for (long offset = 0; offset < content.length; offset += PAGE) {
                    sum += mapped.get(ValueLayout.JAVA_BYTE, offset);
                }
                assertThat(sum).isNotZero();
                long before = residentKiB(path);
                assertThat(before).as("resident after reading every page").isGreaterThanOrEqualTo(content.length / 1024 * 9 / 10);

                List<ExecutablePages.Mapping> mappings = ExecutablePages.mappings(Files.readString(Path.of("/proc/self/maps")), path);
                assertThat(mappings).hasSize(1);
                assertThat(ExecutablePages.pageOut(mappings)).isEqualTo(content.length);

                assertThat(residentKiB(path)).as("resident after paging out (was %d KiB)", before)
                        .isLessThanOrEqualTo(content.length / 1024 / 10);
                // and the pages read back as they were
                assertThat(mapped.asSlice(PAGE * 100L, PAGE).toArray(ValueLayout.JAVA_BYTE))
                        .isEqualTo(java.util.Arrays.copyOfRange(content, PAGE * 100, PAGE * 101));
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** A native agent links madvise only if native-image registered its shape: the kit's metadata names exactly it. */
    @Test
    void nativeImageRegistersExactlyTheDowncallShapeTheKitLinks() throws IOException {
        assertThat(ForeignDowncalls.registered("/META-INF/native-image/dev.kgpu/agent-kit/reachability-metadata.json"))
                .containsExactly(ForeignDowncalls.shape(ExecutablePages.MADVISE_SHAPE, false));
    }

    /** The resident KiB of this process's mapping of {@code path}, from {@code /proc/self/smaps}. */
    private static long residentKiB(String path) throws IOException {
        boolean inMapping = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                inMapping = line.endsWith(" " + path);
            } else if (inMapping && line.startsWith("Rss:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new AssertionError("no mapping of " + path + " in /proc/self/smaps");
    }
}
