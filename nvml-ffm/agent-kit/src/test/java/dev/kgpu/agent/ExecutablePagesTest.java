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
                new ExecutablePages.Mapping(0x400000L, 0x405000L, false),
                new ExecutablePages.Mapping(0x410000L, 0x276a000L, false),
                new ExecutablePages.Mapping(0x7fe738000000L, 0x7fe7390cb000L, true));
        assertThat(ExecutablePages.mappings(maps, "/opt/kgpu/plugin two"))
                .containsExactly(new ExecutablePages.Mapping(0x7fef36e00000L, 0x7fef36e01000L, false));
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
        int pages = 1024;
        byte[] content = new byte[pages * PAGE];
        new Random(7).nextBytes(content);
        Path file = writtenFile(content, content.length);
        try {
            String path = file.toRealPath().toString();
            try (Arena arena = Arena.ofConfined();
                 FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, content.length, arena);
                readEveryPage(mapped);
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

    /**
     * After paging out, a page read back comes without read-ahead: at most the kernel's fault-around (16 pages) per
     * read. With read-ahead, 256 reads scattered over a 64 MiB file mapped 45 MiB on Linux 6.18 (a device read-ahead of
     * 8 MiB, and large folios of which a fault maps the whole one); an older kernel maps less either way.
     */
    @Test
    void pagesReadBackAfterPagingOutComeWithoutReadAhead() throws IOException {
        int pages = 16_384;
        byte[] content = new byte[pages * PAGE];
        new Random(11).nextBytes(content);
        Path file = writtenFile(content, content.length);
        try {
            String path = file.toRealPath().toString();
            try (Arena arena = Arena.ofConfined();
                 FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, content.length, arena);
                readEveryPage(mapped);
                ExecutablePages.pageOut(ExecutablePages.mappings(Files.readString(Path.of("/proc/self/maps")), path));
                long pagedOut = residentKiB(path);

                int reads = 256;
                for (int i = 0; i < reads; i++) {
                    int page = 37 + i * (pages / reads);
                    assertThat(mapped.get(ValueLayout.JAVA_BYTE, (long) page * PAGE)).isEqualTo(content[page * PAGE]);
                }

                assertThat(residentKiB(path) - pagedOut).as("KiB mapped by %d reads after paging out", reads)
                        .isLessThanOrEqualTo(reads * 16L * PAGE / 1024);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * After paging out, the cached pages around those the agent read are dropped too: a page read later maps itself,
     * not the 16-page fault-around window of cached neighbours. The file is written in 4 KiB writes (small page-cache
     * folios, as an image's unpacking leaves them) and every 32nd page read, so the kernel maps the first half of each
     * 32-page stretch and the second half stays cached, unmapped.
     */
    @Test
    void theCachedPagesNoProcessMapsAreDroppedSoALaterReadMapsItsPageAlone() throws IOException {
        int pages = 4096;
        byte[] content = new byte[pages * PAGE];
        new Random(13).nextBytes(content);
        Path file = writtenFile(content, PAGE);
        try {
            String path = file.toRealPath().toString();
            try (Arena arena = Arena.ofConfined();
                 FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, content.length, arena);
                for (int page = 0; page < pages; page += 32) {
                    mapped.get(ValueLayout.JAVA_BYTE, (long) page * PAGE);
                }
                ExecutablePages.pageOut(ExecutablePages.mappings(Files.readString(Path.of("/proc/self/maps")), path));
                assertThat(ExecutablePages.dropUnmappedCache(file)).isTrue();
                long pagedOut = residentKiB(path);

                int reads = 0;
                for (int page = 16; page < pages; page += 32) {
                    assertThat(mapped.get(ValueLayout.JAVA_BYTE, (long) page * PAGE)).isEqualTo(content[page * PAGE]);
                    reads++;
                }

                assertThat(residentKiB(path) - pagedOut).as("KiB mapped by %d reads after paging out", reads)
                        .isLessThanOrEqualTo(reads * 2L * PAGE / 1024);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void theRunsToUnmapLeaveOutEveryPageTheProcessWrote() {
        long file = ExecutablePages.PAGEMAP_PRESENT | ExecutablePages.PAGEMAP_FILE;
        long written = ExecutablePages.PAGEMAP_PRESENT;  // present, not the file's: an anonymous copy
        long absent = 0;

        assertThat(ExecutablePages.unwrittenRuns(new long[] {file, absent, written, file, file, written, written, absent}))
                .containsExactly(new ExecutablePages.Run(0, 2), new ExecutablePages.Run(3, 5), new ExecutablePages.Run(7, 8));
        assertThat(ExecutablePages.unwrittenRuns(new long[] {written, written})).isEmpty();
        assertThat(ExecutablePages.unwrittenRuns(new long[] {file, file, absent})).containsExactly(new ExecutablePages.Run(0, 3));
        assertThat(ExecutablePages.unwrittenRuns(new long[0])).isEmpty();
    }

    /**
     * The advice reaches the kernel, and only over the file's own pages: a file mapped privately and read is resident;
     * after {@code unmap} its pages are unmapped, but the pages this process wrote (its anonymous copies, which the
     * advice would drop, the file's bytes coming back in their place) still hold what it wrote.
     */
    @Test
    void unmappingDropsTheFilesPagesAndKeepsThoseTheProcessWrote() throws IOException {
        int pages = 1024;
        byte[] content = new byte[pages * PAGE];
        new Random(17).nextBytes(content);
        Path file = writtenFile(content, content.length);
        try {
            String path = file.toRealPath().toString();
            try (Arena arena = Arena.ofConfined();
                 // a private mapping, copied on write, needs a channel open for writing; the file itself is not written
                 FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                MemorySegment mapped = channel.map(FileChannel.MapMode.PRIVATE, 0, content.length, arena);
                // written first: a write to a page of a large page-cache folio unmaps the folio's other pages
                int[] writtenPages = {3, 4, 500, 1023};
                for (int page : writtenPages) {
                    mapped.set(ValueLayout.JAVA_BYTE, (long) page * PAGE + 1, (byte) (content[page * PAGE + 1] + 1));
                }
                readEveryPage(mapped);
                long before = residentKiB(path);
                assertThat(before).as("resident after reading every page").isGreaterThanOrEqualTo(content.length / 1024 * 9 / 10);

                List<ExecutablePages.Mapping> mappings = ExecutablePages.mappings(Files.readString(Path.of("/proc/self/maps")), path);
                assertThat(mappings).hasSize(1);
                ExecutablePages.Unmapped unmapped = ExecutablePages.unmap(mappings, Path.of("/proc/self/pagemap"), PAGE);

                assertThat(unmapped.kept()).isEqualTo(writtenPages.length);
                assertThat(unmapped.advised()).isEqualTo((long) (pages - writtenPages.length) * PAGE);
                assertThat(residentKiB(path)).as("resident after unmapping (was %d KiB)", before)
                        .isLessThanOrEqualTo(writtenPages.length * PAGE / 1024);
                for (int page : writtenPages) {
                    assertThat(mapped.get(ValueLayout.JAVA_BYTE, (long) page * PAGE + 1)).as("written page %d", page)
                            .isEqualTo((byte) (content[page * PAGE + 1] + 1));
                }
                assertThat(mapped.asSlice(PAGE * 100L, PAGE).toArray(ValueLayout.JAVA_BYTE))
                        .isEqualTo(java.util.Arrays.copyOfRange(content, PAGE * 100, PAGE * 101));
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void droppingTheCacheOfAFileThatIsNotThereIsRefusedQuietly() {
        assertThat(ExecutablePages.dropUnmappedCache(Path.of("target", "no-such-executable"))).isFalse();
    }

    /** A native agent links its libc calls only if native-image registered their shapes: the kit's metadata names exactly them. */
    @Test
    void nativeImageRegistersExactlyTheDowncallShapeTheKitLinks() throws IOException {
        assertThat(ForeignDowncalls.registered("/META-INF/native-image/dev.kgpu/agent-kit/reachability-metadata.json"))
                .containsExactlyInAnyOrder(ForeignDowncalls.shape(ExecutablePages.MADVISE_SHAPE, false),
                        ForeignDowncalls.variadicShape(ExecutablePages.OPEN_SHAPE, ExecutablePages.OPEN_FIRST_VARIADIC),
                        ForeignDowncalls.shape(ExecutablePages.FADVISE_SHAPE, false),
                        ForeignDowncalls.shape(ExecutablePages.CLOSE_SHAPE, false),
                        ForeignDowncalls.shape(ExecutablePages.GETPAGESIZE_SHAPE, false));
    }

    /**
     * A new file holding {@code content}, written in writes of {@code writeSize} bytes and synced (clean pages: a dirty
     * one would have to be written back before it could be paged out). On disk, not tmpfs (a tmpfs page has nowhere
     * to go without swap): the module's build folder.
     */
    private static Path writtenFile(byte[] content, int writeSize) throws IOException {
        Path file = Files.createTempFile(Path.of("target").toAbsolutePath(), "executable-pages", ".bin");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            for (int offset = 0; offset < content.length; offset += writeSize) {
                channel.write(ByteBuffer.wrap(content, offset, Math.min(writeSize, content.length - offset)));
            }
            channel.force(true);
        }
        return file;
    }

    /** Reads a byte of each page of {@code mapped}, so each is mapped; the bytes are used, so no read is left out. */
    private static void readEveryPage(MemorySegment mapped) {
        long sum = 0;
        for (long offset = 0; offset < mapped.byteSize(); offset += PAGE) {
            sum += mapped.get(ValueLayout.JAVA_BYTE, offset);
        }
        assertThat(sum).as("the sum of a byte of each page").isNotZero();
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
