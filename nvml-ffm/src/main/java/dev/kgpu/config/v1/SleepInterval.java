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

    /** Relabel every {@code duration}, which is positive. */
    record Every(Duration duration) implements SleepInterval {
        public Every {
            Objects.requireNonNull(duration, "duration");
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException(
                        "must be positive (a zero or negative interval would relabel in a busy loop), or 'infinite'");
            }
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
     * Parses {@code infinite} or a Go duration.
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
