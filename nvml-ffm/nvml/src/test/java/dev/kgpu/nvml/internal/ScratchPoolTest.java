package dev.kgpu.nvml.internal;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ScratchPoolTest {

    @Test
    void handsOutDistinctPreallocatedSegmentsAndReusesReleasedOnes() {
        ScratchPool pool = new ScratchPool(4);
        List<MemorySegment> taken = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            taken.add(pool.acquire());
        }
        assertThat(taken).extracting(MemorySegment::address).doesNotHaveDuplicates();
        assertThat(taken).allSatisfy(segment -> assertThat(segment.byteSize()).isEqualTo(ScratchPool.SEGMENT_BYTES));
        assertThat(pool.overflowAllocations()).isZero();

        pool.release(taken.get(2));
        MemorySegment again = pool.acquire();

        assertThat(again.address()).isEqualTo(taken.get(2).address());
        assertThat(pool.overflowAllocations()).isZero();
    }

    @Test
    void slicesAtFixedOffsetsAreMadeOnceAndReused() {
        ScratchPool pool = new ScratchPool(2);
        MemorySegment segment = pool.acquire();

        MemorySegment first = pool.at(segment, 64);
        MemorySegment again = pool.at(segment, 64);

        assertThat(again).isSameAs(first);
        assertThat(first.address()).isEqualTo(segment.address() + 64);
        assertThat(first.byteSize()).isEqualTo(ScratchPool.SEGMENT_BYTES - 64);
        assertThat(pool.at(segment, 4).address()).as("unaligned offsets still work").isEqualTo(segment.address() + 4);
        assertThat(pool.at(segment, 2048).address()).as("offsets past the cache still work").isEqualTo(segment.address() + 2048);
        MemorySegment foreign = java.lang.foreign.Arena.ofAuto().allocate(ScratchPool.SEGMENT_BYTES);
        assertThat(pool.at(foreign, 64).address()).isEqualTo(foreign.address() + 64);
    }

    @Test
    void allocatesBeyondThePoolOnlyWhenEverySegmentIsInUse() {
        ScratchPool pool = new ScratchPool(2);
        MemorySegment first = pool.acquire();
        MemorySegment second = pool.acquire();

        MemorySegment extra = pool.acquire();

        assertThat(pool.overflowAllocations()).isEqualTo(1);
        assertThat(extra.address()).isNotIn(first.address(), second.address());
        pool.release(first);
        pool.release(second);
        pool.release(extra); // no free slot: dropped, not kept
        assertThat(List.of(pool.acquire().address(), pool.acquire().address()))
                .containsExactlyInAnyOrder(first.address(), second.address());
        assertThat(pool.overflowAllocations()).isEqualTo(1);
    }
}
