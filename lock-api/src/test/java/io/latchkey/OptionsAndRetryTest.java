package io.latchkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.Iterator;
import org.junit.jupiter.api.Test;

class OptionsAndRetryTest {

    @Test
    void defaultsAreDocumented() {
        LockOptions o = LockOptions.defaults();
        assertThat(o.lease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.autoRenew()).isTrue();
        assertThat(o.renewInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.maxHold()).isEmpty();
        assertThat(o.reentrancy()).isEqualTo(Reentrancy.NONE);
        assertThat(o.fairness()).isEqualTo(Fairness.PREFERRED);
    }

    @Test
    void renewIntervalFollowsTheLeaseUnlessSet() {
        assertThat(LockOptions.builder().lease(Duration.ofSeconds(3)).build().renewInterval()).isEqualTo(Duration.ofSeconds(1));
        LockOptions o = LockOptions.builder().lease(Duration.ofSeconds(9)).renewInterval(Duration.ofSeconds(2)).build();
        assertThat(o.renewInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.toBuilder().lease(Duration.ofSeconds(1)).build().renewInterval())
                .as("an interval that no longer fits the new lease falls back to lease/3")
                .isEqualTo(Duration.ofSeconds(1).dividedBy(3));
    }

    @Test
    void builderRejectsBadValuesWithWhatIsAllowed() {
        assertThatIllegalArgumentException().isThrownBy(() -> LockOptions.builder().lease(Duration.ZERO))
                .withMessage("lease must be positive, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> LockOptions.builder().lease(Duration.ofDays(366)))
                .withMessageContaining("at most 365 days");
        assertThatIllegalArgumentException().isThrownBy(() -> LockOptions.builder().lease(Duration.ofSeconds(Long.MAX_VALUE)))
                .withMessageContaining("at most");
        assertThatIllegalArgumentException().isThrownBy(() -> LockOptions.builder().retry(null))
                .withMessageContaining("RetryStrategy.none()");
        assertThatIllegalArgumentException().isThrownBy(() -> LockOptions.builder().reentrancy(null))
                .withMessageContaining("NONE or PER_THREAD");
        assertThatIllegalArgumentException().isThrownBy(() -> RetryStrategy.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .withMessageContaining("at least the initial delay");
        assertThatIllegalArgumentException().isThrownBy(() -> RetryStrategy.fixed(Duration.ofMillis(-1)))
                .withMessageContaining("positive");
    }

    @Test
    void exponentialBackoffDoublesWithJitterUpToTheCap() {
        Iterator<Duration> d = RetryStrategy.exponential(Duration.ofMillis(10), Duration.ofMillis(100)).delays();
        long[] ceilings = {10, 20, 40, 80, 100, 100, 100};
        for (long ceiling : ceilings) {
            Duration next = d.next();
            assertThat(next).isBetween(Duration.ofMillis(ceiling).dividedBy(2), Duration.ofMillis(ceiling));
        }
    }

    @Test
    void fixedAndNone() {
        assertThat(RetryStrategy.fixed(Duration.ofMillis(7)).delays().next()).isEqualTo(Duration.ofMillis(7));
        assertThat(RetryStrategy.none().delays().hasNext()).isFalse();
    }
}
