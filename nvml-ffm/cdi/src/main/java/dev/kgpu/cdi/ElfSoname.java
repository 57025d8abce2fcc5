package dev.kgpu.cdi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * The {@code DT_SONAME} of a 64-bit little-endian ELF shared library (x86-64, aarch64), read the way Go's
 * {@code debug/elf} {@code DynString(DT_SONAME)} reads it for nvidia-container-toolkit: from the section of type
 * {@code SHT_DYNAMIC} and the string table it links to. Anything else (a stub file, a 32-bit or big-endian ELF,
 * a library without a SONAME) has none.
 *
 * <p>Stateless and thread-safe.
 */
final class ElfSoname {

    private static final int SHT_DYNAMIC = 6;
    private static final long DT_NULL = 0;
    private static final long DT_SONAME = 14;
    /** More than any real library's section header table or dynamic section. */
    private static final long MAX_TABLE_BYTES = 1 << 20;

    private ElfSoname() {
    }

    static Optional<String> read(Path library) {
        try (FileChannel file = FileChannel.open(library, StandardOpenOption.READ)) {
            ByteBuffer header = read(file, 0, 64);
            if (header == null || header.getInt(0) != 0x464c457f || header.get(4) != 2 || header.get(5) != 1) {
                return Optional.empty();   // not ELF, not 64-bit or not little-endian
            }
            long sectionsAt = header.getLong(0x28);
            int entrySize = Short.toUnsignedInt(header.getShort(0x3a));
            int count = Short.toUnsignedInt(header.getShort(0x3c));
            if (entrySize < 64 || (long) entrySize * count > MAX_TABLE_BYTES) {
                return Optional.empty();
            }
            ByteBuffer sections = read(file, sectionsAt, entrySize * count);
            if (sections == null) {
                return Optional.empty();
            }
            for (int i = 0; i < count; i++) {
                int at = i * entrySize;
                if (sections.getInt(at + 4) != SHT_DYNAMIC) {
                    continue;
                }
                long dynamicAt = sections.getLong(at + 0x18);
                long dynamicSize = sections.getLong(at + 0x20);
                int link = sections.getInt(at + 0x28);
                if (link < 0 || link >= count || dynamicSize > MAX_TABLE_BYTES) {
                    return Optional.empty();
                }
                long stringsAt = sections.getLong(link * entrySize + 0x18);
                long stringsSize = sections.getLong(link * entrySize + 0x20);
                ByteBuffer dynamic = read(file, dynamicAt, (int) dynamicSize);
                if (dynamic == null) {
                    return Optional.empty();
                }
                for (int d = 0; d + 16 <= dynamicSize; d += 16) {
                    long tag = dynamic.getLong(d);
                    if (tag == DT_NULL) {
                        break;
                    }
                    if (tag == DT_SONAME) {
                        long offset = dynamic.getLong(d + 8);
                        return offset < 0 || offset >= stringsSize ? Optional.empty() : string(file, stringsAt + offset);
                    }
                }
                return Optional.empty();
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static ByteBuffer read(FileChannel file, long position, int size) throws IOException {
        if (position < 0 || size < 0 || position + size > file.size()) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        while (buffer.hasRemaining()) {
            if (file.read(buffer, position + buffer.position()) < 0) {
                return null;
            }
        }
        return buffer.flip();
    }

    private static Optional<String> string(FileChannel file, long position) throws IOException {
        ByteBuffer chunk = read(file, position, (int) Math.min(256, file.size() - position));
        if (chunk == null) {
            return Optional.empty();
        }
        for (int i = 0; i < chunk.limit(); i++) {
            if (chunk.get(i) == 0) {
                return Optional.of(new String(chunk.array(), 0, i, StandardCharsets.UTF_8));
            }
        }
        return Optional.empty();
    }
}
