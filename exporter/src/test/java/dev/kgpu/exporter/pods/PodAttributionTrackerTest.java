package dev.kgpu.exporter.pods;

import dev.kgpu.exporter.config.GpuIdType;
import dev.kgpu.exporter.metrics.Entity;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class PodAttributionTrackerTest {

    private static final Entity GPU0 = Entity.gpu(0, "GPU-aaaa", "b", "m");
    private static final MigInstanceLookup NO_MIGS = uuid -> Optional.empty();

    /** Answers from a script: a list of devices, or an exception to throw. */
    private static final class ScriptedKubelet implements PodResourcesSource {
        final Deque<Object> answers = new ArrayDeque<>();
        int calls;

        @Override
        @SuppressWarnings("unchecked")
        public List<ContainerDevices> list() throws PodResourcesException {
            calls++;
            Object answer = answers.removeFirst();
            if (answer instanceof PodResourcesException e) {
                throw e;
            }
            return (List<ContainerDevices>) answer;
        }

        @Override
        public void close() {
        }
    }

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final ScriptedKubelet kubelet = new ScriptedKubelet();
    private final List<PodAttributionTracker.Outcome> outcomes = new ArrayList<>();
    private final PodAttributionTracker tracker = new PodAttributionTracker(kubelet, Set.of(), GpuIdType.UID, false,
            now::get, outcomes::add);

    private static List<ContainerDevices> held(String pod) {
        return List.of(new ContainerDevices(pod, "ns", "c", "nvidia.com/gpu", List.of("GPU-aaaa")));
    }

    @Test
    void keepsTheLastGoodMappingWhileTheKubeletIsAwayAndPicksUpTheNewOneAfter() {
        kubelet.answers.add(held("first"));
        kubelet.answers.add(new PodResourcesException.SocketMissing("socket gone"));
        kubelet.answers.add(new PodResourcesException.Unavailable("refused", null));
        kubelet.answers.add(held("second"));

        assertThat(tracker.refresh(NO_MIGS).holdersOf(GPU0)).extracting(PodRef::pod).containsExactly("first");
        assertThat(tracker.refresh(NO_MIGS).holdersOf(GPU0)).extracting(PodRef::pod).containsExactly("first");
        assertThat(tracker.refresh(NO_MIGS).holdersOf(GPU0)).extracting(PodRef::pod).containsExactly("first");
        assertThat(tracker.refresh(NO_MIGS).holdersOf(GPU0)).extracting(PodRef::pod).containsExactly("second");
        assertThat(outcomes).containsExactly(PodAttributionTracker.Outcome.OK,
                PodAttributionTracker.Outcome.SOCKET_MISSING, PodAttributionTracker.Outcome.UNAVAILABLE,
                PodAttributionTracker.Outcome.OK);
    }

    @Test
    void backsOffWhenRateLimitedDoublingUpToAMinute() {
        kubelet.answers.add(held("first"));
        for (int i = 0; i < 8; i++) {
            kubelet.answers.add(new PodResourcesException.RateLimited("rejected by rate limit", null));
        }
        kubelet.answers.add(held("second"));
        tracker.refresh(NO_MIGS);

        List<Long> waits = List.of(1L, 2L, 4L, 8L, 16L, 32L, 60L, 60L);
        for (long wait : waits) {
            int calls = kubelet.calls;
            assertThat(tracker.refresh(NO_MIGS).holdersOf(GPU0)).extracting(PodRef::pod).containsExactly("first");
            assertThat(outcomes.getLast()).isEqualTo(PodAttributionTracker.Outcome.RATE_LIMITED);
            now.set(now.get().plus(Duration.ofSeconds(wait)).minusMillis(1));
            tracker.refresh(NO_MIGS);
            assertThat(outcomes.getLast()).isEqualTo(PodAttributionTracker.Outcome.BACKING_OFF);
            assertThat(kubelet.calls).isEqualTo(calls + 1);
            now.set(now.get().plusMillis(1));
        }
        assertThat(tracker.refresh(NO_MIGS).holdersOf(GPU0)).extracting(PodRef::pod).containsExactly("second");
        assertThat(kubelet.answers).isEmpty();
    }
}
