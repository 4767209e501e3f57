package io.latchkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.Iterator;
import org.junit.jupiter.api.DisplayName;
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
        assertThat(LockOptions.builder().lease(Duration.ofSeconds(3)).build().renewInterval())
                .isEqualTo(Duration.ofSeconds(1));
        LockOptions o = LockOptions.builder()
                .lease(Duration.ofSeconds(9))
                .renewInterval(Duration.ofSeconds(2))
                .build();
        assertThat(o.renewInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.toBuilder().lease(Duration.ofSeconds(1)).build().renewInterval())
                .as("an interval that no longer fits the new lease falls back to lease/3")
                .isEqualTo(Duration.ofSeconds(1).dividedBy(3));
    }

    /** Every way to get a builder: fresh, from the defaults, and from options whose renew interval was derived. */
    private static java.util.List<java.util.function.Supplier<LockOptions.Builder>> builders() {
        return java.util.List.of(
                LockOptions::builder,
                () -> LockOptions.defaults().toBuilder(),
                () -> LockOptions.builder().lease(Duration.ofSeconds(9)).build().toBuilder(),
                () -> LockOptions.builder().lease(Duration.ofHours(2)).build().toBuilder().build().toBuilder());
    }

    @Test
    @DisplayName("a derived renew interval is derived again from the new lease, via builder() and toBuilder() alike")
    void derivedRenewIntervalIsDerivedAgain() {
        assertThat(LockOptions.defaults().toBuilder()
                        .lease(Duration.ofSeconds(60))
                        .build()
                        .renewInterval())
                .as("the reported case")
                .isEqualTo(Duration.ofSeconds(20));
        for (var builder : builders()) {
            for (Duration lease : new Duration[] {
                Duration.ofMillis(300), Duration.ofSeconds(3), Duration.ofSeconds(60), Duration.ofHours(1)
            }) {
                LockOptions o = builder.get().lease(lease).build();
                assertThat(o.renewInterval()).as("lease %s", lease).isEqualTo(lease.dividedBy(3));
                assertThat(o.toBuilder().lease(lease.multipliedBy(2)).build().renewInterval())
                        .as("derived again after a second toBuilder, lease %s", lease)
                        .isEqualTo(lease.multipliedBy(2).dividedBy(3));
            }
        }
    }

    @Test
    @DisplayName("a renew interval that was set is kept, via builder() and toBuilder() alike, until set back to null")
    void setRenewIntervalIsKept() {
        for (var builder : builders()) {
            LockOptions set = builder.get().renewInterval(Duration.ofSeconds(2)).build();
            assertThat(set.renewInterval()).isEqualTo(Duration.ofSeconds(2));
            for (Duration lease : new Duration[] {Duration.ofSeconds(3), Duration.ofSeconds(60), Duration.ofHours(1)}) {
                assertThat(set.toBuilder().lease(lease).build().renewInterval())
                        .as("lease %s", lease)
                        .isEqualTo(Duration.ofSeconds(2));
                assertThat(builder.get().lease(lease).renewInterval(Duration.ofSeconds(2)).build().toBuilder()
                                .build()
                                .renewInterval())
                        .isEqualTo(Duration.ofSeconds(2));
            }
            assertThat(set.toBuilder()
                            .renewInterval(null)
                            .lease(Duration.ofSeconds(60))
                            .build()
                            .renewInterval())
                    .as("null goes back to lease/3")
                    .isEqualTo(Duration.ofSeconds(20));
        }
    }

    @Test
    @DisplayName(
            "no other option is derived: each one set is kept by toBuilder() whatever the lease, each one not set keeps its default")
    void otherOptionsAreKept() {
        RetryStrategy retry = RetryStrategy.fixed(Duration.ofMillis(7));
        LockOptions set = LockOptions.builder()
                .autoRenew(false)
                .maxHold(Duration.ofMinutes(5))
                .retry(retry)
                .reentrancy(Reentrancy.PER_THREAD)
                .fairness(Fairness.REQUIRED)
                .build();
        LockOptions copy = set.toBuilder().lease(Duration.ofSeconds(60)).build();
        assertThat(copy.autoRenew()).isFalse();
        assertThat(copy.maxHold()).contains(Duration.ofMinutes(5));
        assertThat(copy.retry()).isSameAs(retry);
        assertThat(copy.reentrancy()).isEqualTo(Reentrancy.PER_THREAD);
        assertThat(copy.fairness()).isEqualTo(Fairness.REQUIRED);
        LockOptions plain =
                LockOptions.defaults().toBuilder().lease(Duration.ofSeconds(60)).build();
        assertThat(plain.autoRenew()).isTrue();
        assertThat(plain.maxHold()).isEmpty();
        assertThat(plain.retry()).isSameAs(LockOptions.defaults().retry());
        assertThat(plain.reentrancy()).isEqualTo(Reentrancy.NONE);
        assertThat(plain.fairness()).isEqualTo(Fairness.PREFERRED);
        assertThat(plain.toString()).contains("renewInterval=PT20S (lease/3)");
    }

    @Test
    void builderRejectsBadValuesWithWhatIsAllowed() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockOptions.builder().lease(Duration.ZERO))
                .withMessage("lease must be positive, was PT0S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockOptions.builder().lease(Duration.ofDays(366)))
                .withMessageContaining("at most 365 days");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockOptions.builder().lease(Duration.ofSeconds(Long.MAX_VALUE)))
                .withMessageContaining("at most");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockOptions.builder().retry(null))
                .withMessageContaining("RetryStrategy.none()");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockOptions.builder().reentrancy(null))
                .withMessageContaining("NONE or PER_THREAD");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RetryStrategy.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .withMessageContaining("at least the initial delay");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RetryStrategy.fixed(Duration.ofMillis(-1)))
                .withMessageContaining("positive");
    }

    @Test
    void exponentialBackoffDoublesWithJitterUpToTheCap() {
        Iterator<Duration> d = RetryStrategy.exponential(Duration.ofMillis(10), Duration.ofMillis(100))
                .delays();
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
