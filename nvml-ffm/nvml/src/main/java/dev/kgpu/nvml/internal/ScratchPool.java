package dev.kgpu.nvml.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A small pool of preallocated 4 KiB native segments that NVML calls use for their out-parameters, so
 * that reading telemetry allocates no native memory per call.
 *
 * <p>The segments are slices of one block allocated once from an automatic arena that the pool keeps
 * reachable for the life of the process. {@link #acquire()} takes a free segment with one
 * compare-and-set (lock-free; it never blocks); when every segment is in use (more threads at once
 * than {@link #SLOTS}) it allocates a fresh segment and counts it in {@link #overflowAllocations()},
 * and {@link #release} drops such extra segments unless a slot is free.
 *
 * <p>Thread-safety: safe for any number of threads. A segment belongs to the thread that acquired it
 * until that thread releases it; contents are not cleared between uses. The slice cache of {@link #at} is
 * written without locks: two threads may each make the same slice, and either one is correct.
 */
final class ScratchPool {

    /** Bytes in each scratch segment: enough for every out-parameter set one NVML read needs. */
    static final long SEGMENT_BYTES = 4096;

    /** How many segments are preallocated. */
    static final int SLOTS = 32;

    private static final ScratchPool SHARED = new ScratchPool(SLOTS);

    /** Offsets below this, in steps of 8 bytes, get cached slices from {@link #at}. */
    static final int CACHED_BYTES = 1024;

    private final AtomicReferenceArray<MemorySegment> free;
    private final AtomicLong overflow = new AtomicLong();
    private final MemorySegment block; // also keeps the automatic arena's block reachable
    /** Per preallocated segment, its slices at 8-byte offsets, made on first use (benign races). */
    private final MemorySegment[][] slices;

    ScratchPool(int slots) {
        this.free = new AtomicReferenceArray<>(slots);
        this.block = Arena.ofAuto().allocate(SEGMENT_BYTES * slots, 64);
        this.slices = new MemorySegment[slots][CACHED_BYTES / 8];
        for (int i = 0; i < slots; i++) {
            free.set(i, block.asSlice(i * SEGMENT_BYTES, SEGMENT_BYTES));
        }
    }

    /**
     * {@code segment.asSlice(offset)} for a segment of this pool, without allocating a new slice object on
     * every call: slices of the preallocated segments at 8-byte offsets below {@link #CACHED_BYTES} are made
     * once and reused, so passing out-parameters at fixed offsets costs no Java allocation either.
     */
    MemorySegment at(MemorySegment segment, long offset) {
        long relative = segment.address() - block.address();
        if (relative < 0 || relative >= block.byteSize() || (offset & 7) != 0 || offset >= CACHED_BYTES
                || relative % SEGMENT_BYTES != 0) {
            return segment.asSlice(offset);
        }
        MemorySegment[] row = slices[(int) (relative / SEGMENT_BYTES)];
        int index = (int) (offset >>> 3);
        MemorySegment slice = row[index];
        if (slice == null) {
            slice = segment.asSlice(offset);
            row[index] = slice;
        }
        return slice;
    }

    /** The process-wide pool. */
    static ScratchPool shared() {
        return SHARED;
    }

    /** A 4 KiB segment for the calling thread; give it back with {@link #release}. */
    MemorySegment acquire() {
        int slots = free.length();
        int start = (int) (Thread.currentThread().threadId() % slots);
        for (int i = 0; i < slots; i++) {
            int slot = (start + i) % slots;
            MemorySegment segment = free.get(slot);
            if (segment != null && free.compareAndSet(slot, segment, null)) {
                return segment;
            }
        }
        overflow.incrementAndGet();
        return Arena.ofAuto().allocate(SEGMENT_BYTES, 64);
    }

    /** Returns a segment taken with {@link #acquire()}. */
    void release(MemorySegment segment) {
        int slots = free.length();
        int start = (int) (Thread.currentThread().threadId() % slots);
        for (int i = 0; i < slots; i++) {
            int slot = (start + i) % slots;
            if (free.get(slot) == null && free.compareAndSet(slot, null, segment)) {
                return;
            }
        }
        // every slot is full: this was an overflow segment; the automatic arena frees it
    }

    /** Segments allocated because every preallocated one was in use (0 in a quiet process). */
    long overflowAllocations() {
        return overflow.get();
    }
}
