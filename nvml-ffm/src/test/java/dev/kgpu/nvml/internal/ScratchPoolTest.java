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
