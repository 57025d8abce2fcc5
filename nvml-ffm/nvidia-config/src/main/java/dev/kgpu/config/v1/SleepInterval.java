package dev.kgpu.config.v1;

import java.time.Duration;
import java.util.Objects;

/**
 * How long feature discovery waits between labelling passes ({@code flags.gfd.sleepInterval},
 * {@code --sleep-interval}, {@code GFD_SLEEP_INTERVAL}): a Go duration such as {@code 60s} or
 * {@code 1m30s}, or {@code infinite} to label once and then wait for a signal.
 *
 * <pre>{@code
 * switch (gfd.sleepInterval()) {
 *     case SleepInterval.Every every -> scheduler.schedule(relabel, every.duration());
 *     case SleepInterval.Infinite infinite -> { } // label again only on SIGHUP
 * }
 * }</pre>
 */
public sealed interface SleepInterval permits SleepInterval.Every, SleepInterval.Infinite {

    /** NVIDIA's default, 60 seconds. */
    SleepInterval DEFAULT = new Every(Duration.ofSeconds(60));

    /** The spelling NVIDIA prints: {@code 1m0s}, {@code infinite}. */
    String goString();

    /**
     * The shortest interval kgpu relabels at. NVIDIA's GFD accepts any duration, {@code 0}, a negative one
     * or a bare number of nanoseconds included, and then relabels in a busy loop; kgpu reads the same values
     * (one file starts both) and relabels no more often than this. Feature discovery refuses a negative one
     * ({@code FeatureDiscoveryConfig}): the plugin, which reads the same file, ignores it.
     */
    Duration SHORTEST = Duration.ofSeconds(1);

    /**
     * Relabel every {@code duration}: any duration NVIDIA accepts, as given. {@link #effective()} is
     * the interval kgpu waits.
     */
    record Every(Duration duration) implements SleepInterval {
        public Every {
            Objects.requireNonNull(duration, "duration");
        }

        /** The interval kgpu relabels at: {@code duration}, or {@link #SHORTEST} when it is shorter. */
        public Duration effective() {
            return duration.compareTo(SHORTEST) < 0 ? SHORTEST : duration;
        }

        /** Whether kgpu waits longer than asked ({@code 0}, {@code 5ns}, {@code -1s}). */
        public boolean raised() {
            return duration.compareTo(SHORTEST) < 0;
        }

        @Override
        public String goString() {
            return GoDuration.format(duration);
        }
    }

    /** Label once, then only on SIGHUP. */
    record Infinite() implements SleepInterval {
        @Override
        public String goString() {
            return "infinite";
        }
    }

    /**
     * Parses {@code infinite} or a Go duration, as NVIDIA's {@code Duration.parse} does for flags,
     * variables and quoted values: {@code 0} and {@code 0s} are accepted, {@code 60} is not (Go's
     * {@code time.ParseDuration} needs a unit on any number but 0).
     *
     * @throws IllegalArgumentException whose message is the reason, worded to follow "but it"
     */
    static SleepInterval parse(String text) {
        if (text.equals("infinite")) {
            return new Infinite();
        }
        Duration duration;
        try {
            duration = GoDuration.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "must be a Go duration such as 60s, 1m30s or 500ms, or 'infinite' (" + e.getMessage() + ")");
        }
        return new Every(duration);
    }
}
