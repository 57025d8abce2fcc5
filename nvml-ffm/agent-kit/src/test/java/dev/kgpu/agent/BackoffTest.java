package dev.kgpu.agent;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackoffTest {

    @Test
    void waitsDoubleUpToTheMaximumAndAResetStartsAgain() {
        Backoff backoff = new Backoff(new Backoff.Policy(Duration.ofSeconds(1), Duration.ofSeconds(5)));

        assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(1));
        assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(2));
        assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(4));
        assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(5));
        assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(5));
        backoff.reset();
        assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void theDefaultIsOneSecondUpToTwoMinutes() {
        assertThat(Backoff.Policy.DEFAULT).isEqualTo(new Backoff.Policy(Duration.ofSeconds(1), Duration.ofMinutes(2)));
    }

    @Test
    void aPolicyNamesItsBadWait() {
        assertThatThrownBy(() -> new Backoff.Policy(Duration.ZERO, Duration.ofSeconds(1)))
                .hasMessage("backoff initial was 'PT0S' but it must be positive");
        assertThatThrownBy(() -> new Backoff.Policy(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessage("backoff max was 'PT1S' but it must be at least the initial PT2S");
    }
}
