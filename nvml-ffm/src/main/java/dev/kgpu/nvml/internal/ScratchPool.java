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
 * until that thread releases it; contents are not cleared between uses.
 */
final class ScratchPool {

    /** Bytes in each scratch segment: enough for every out-parameter set one NVML read needs. */
    static final long SEGMENT_BYTES = 4096;

    /** How many segments are preallocated. */
    static final int SLOTS = 32;

    private static final ScratchPool SHARED = new ScratchPool(SLOTS);

    private final AtomicReferenceArray<MemorySegment> free;
    private final AtomicLong overflow = new AtomicLong();
    @SuppressWarnings({"unused", "FieldCanBeLocal"})
    private final MemorySegment block; // keeps the automatic arena's block reachable

    ScratchPool(int slots) {
        this.free = new AtomicReferenceArray<>(slots);
        this.block = Arena.ofAuto().allocate(SEGMENT_BYTES * slots, 64);
        for (int i = 0; i < slots; i++) {
            free.set(i, block.asSlice(i * SEGMENT_BYTES, SEGMENT_BYTES));
        }
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
