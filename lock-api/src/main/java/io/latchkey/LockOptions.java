package io.latchkey;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How a lock is held and waited for. Immutable; build with {@link #builder()} or adjust with
 * {@link #toBuilder()}. Every setter checks its argument at once and says what is allowed.
 *
 * <ul>
 *   <li>{@code lease} (default 30 s): how long a grant lives in the store without renewal. If the holder
 *       dies, others can acquire after at most this long (plus the store's slack). A lease is <em>not</em>
 *       exclusion if the holder is paused (GC, swap, VM freeze) past it: pass {@link LockHandle#fencingToken()}
 *       to the resource you protect and let it reject stale tokens.</li>
 *   <li>{@code autoRenew} (default on): the core renews the lease every {@code renewInterval}
 *       (default lease/3) on a shared scheduler, until released or until {@code maxHold}.</li>
 *   <li>{@code maxHold} (default none): no renewal extends the grant past acquisition + maxHold; the
 *       handle is then lost with {@link LockLoss.Reason#EXPIRED}. A guard against a holder stuck forever.</li>
 *   <li>{@code retry} (default {@link RetryStrategy#defaultStrategy()}): pauses between attempts while waiting.</li>
 *   <li>{@code reentrancy} (default {@link Reentrancy#NONE}).</li>
 *   <li>{@code fairness} (default {@link Fairness#PREFERRED}).</li>
 * </ul>
 */
public final class LockOptions {
    private static final LockOptions DEFAULTS = new Builder().build();

    private final Duration lease;
    private final boolean autoRenew;
    private final Duration renewInterval;
    /** The renew interval as the user set it, or null if it is derived from the lease (and must follow it). */
    private final @Nullable Duration renewIntervalSet;

    private final @Nullable Duration maxHold;
    private final RetryStrategy retry;
    private final Reentrancy reentrancy;
    private final Fairness fairness;

    private LockOptions(Builder b) {
        this.lease = b.lease;
        this.autoRenew = b.autoRenew;
        this.renewIntervalSet = b.renewInterval;
        this.renewInterval = b.renewInterval != null ? b.renewInterval : b.lease.dividedBy(3);
        this.maxHold = b.maxHold;
        this.retry = b.retry;
        this.reentrancy = b.reentrancy;
        this.fairness = b.fairness;
    }

    /**
     * The defaults: 30 s lease, auto-renew every 10 s, no max hold, default retry, not reentrant.
     *
     * @return the default options
     */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding these options. A value that was derived rather than set stays derived: the renew
     * interval of options built without one follows the lease set on this builder (lease/3), exactly as with
     * {@link #builder()}; one that was set explicitly is kept (unless it no longer fits a shorter lease).
     *
     * @return a new builder with these options
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.lease = lease;
        b.autoRenew = autoRenew;
        b.renewInterval = renewIntervalSet;
        b.maxHold = maxHold;
        b.retry = retry;
        b.reentrancy = reentrancy;
        b.fairness = fairness;
        return b;
    }

    /**
     * How long a grant lives in the store without renewal.
     *
     * @return the lease, positive
     */
    public Duration lease() {
        return lease;
    }

    /**
     * Whether the core renews the lease while the lock is held.
     *
     * @return true if auto-renewal is on
     */
    public boolean autoRenew() {
        return autoRenew;
    }

    /**
     * How often auto-renewal runs: as set, or lease/3 when not set.
     *
     * @return the renew interval, shorter than the lease
     */
    public Duration renewInterval() {
        return renewInterval;
    }

    /**
     * The cap on the total hold time, renewals included.
     *
     * @return the cap, or empty for none
     */
    public Optional<Duration> maxHold() {
        return Optional.ofNullable(maxHold);
    }

    /**
     * How long to pause between attempts while waiting.
     *
     * @return the retry strategy
     */
    public RetryStrategy retry() {
        return retry;
    }

    /**
     * Whether a thread that holds the lock can acquire it again.
     *
     * @return the reentrancy
     */
    public Reentrancy reentrancy() {
        return reentrancy;
    }

    /**
     * Whether waiters are served in order.
     *
     * @return the fairness asked for
     */
    public Fairness fairness() {
        return fairness;
    }

    @Override
    public String toString() {
        return "LockOptions[lease=" + lease + ", autoRenew=" + autoRenew + ", renewInterval=" + renewInterval
                + (renewIntervalSet == null ? " (lease/3)" : "")
                + ", maxHold=" + (maxHold == null ? "none" : maxHold) + ", reentrancy=" + reentrancy
                + ", fairness=" + fairness + "]";
    }

    /** Builder for {@link LockOptions}; not thread-safe. */
    public static final class Builder {
        private Duration lease = Duration.ofSeconds(30);
        private boolean autoRenew = true;
        private @Nullable Duration renewInterval;
        private @Nullable Duration maxHold;
        private RetryStrategy retry = RetryStrategy.defaultStrategy();
        private Reentrancy reentrancy = Reentrancy.NONE;
        private Fairness fairness = Fairness.PREFERRED;

        private Builder() {}

        /**
         * Lease of each grant: positive, at most 365 days. A renew interval that was not set follows it
         * (lease/3); one that was set and is not shorter than the new lease is dropped, so it follows too.
         *
         * @param lease positive, at most 365 days
         * @return this builder
         */
        public Builder lease(Duration lease) {
            this.lease = Durations.requireLease(lease, "lease");
            if (renewInterval != null && renewInterval.compareTo(lease) >= 0) {
                renewInterval = null;
            }
            return this;
        }

        /**
         * Turns auto-renewal on (the default) or off.
         *
         * @param autoRenew whether the core renews the lease while the lock is held
         * @return this builder
         */
        public Builder autoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
            return this;
        }

        /**
         * How often auto-renewal runs: positive and shorter than the lease (checked by {@link #build()});
         * {@code null} for the default, lease/3, which then follows the lease.
         *
         * @param renewInterval positive and shorter than the lease, or {@code null} for lease/3
         * @return this builder
         */
        public Builder renewInterval(@Nullable Duration renewInterval) {
            this.renewInterval = renewInterval == null ? null : Durations.requireLease(renewInterval, "renewInterval");
            return this;
        }

        /**
         * Cap on the total hold time, renewals included: positive, at most 365 days; {@code null} for none.
         *
         * @param maxHold positive, at most 365 days, or {@code null} for no cap
         * @return this builder
         */
        public Builder maxHold(@Nullable Duration maxHold) {
            this.maxHold = maxHold == null ? null : Durations.requireLease(maxHold, "maxHold");
            return this;
        }

        /**
         * The pauses between attempts while waiting.
         *
         * @param retry not null; {@link RetryStrategy#none()} for a single attempt
         * @return this builder
         */
        public Builder retry(RetryStrategy retry) {
            if (retry == null) {
                throw new IllegalArgumentException(
                        "retry must not be null; use RetryStrategy.none() for a single attempt");
            }
            this.retry = retry;
            return this;
        }

        /**
         * Whether a thread that holds the lock can acquire it again.
         *
         * @param reentrancy {@code NONE} (the default) or {@code PER_THREAD}
         * @return this builder
         */
        public Builder reentrancy(Reentrancy reentrancy) {
            if (reentrancy == null) {
                throw new IllegalArgumentException("reentrancy must not be null: NONE or PER_THREAD");
            }
            this.reentrancy = reentrancy;
            return this;
        }

        /**
         * Whether waiters are served in order.
         *
         * @param fairness {@code NONE}, {@code PREFERRED} (the default) or {@code REQUIRED}
         * @return this builder
         */
        public Builder fairness(Fairness fairness) {
            if (fairness == null) {
                throw new IllegalArgumentException("fairness must not be null: NONE, PREFERRED or REQUIRED");
            }
            this.fairness = fairness;
            return this;
        }

        /**
         * The options as set.
         *
         * @return the options
         * @throws IllegalArgumentException if the renew interval is not shorter than the lease
         */
        public LockOptions build() {
            if (renewInterval != null && renewInterval.compareTo(lease) >= 0) {
                throw new IllegalArgumentException("renewInterval must be shorter than the lease (" + lease + "), was "
                        + renewInterval + "; the default is lease/3");
            }
            return new LockOptions(this);
        }
    }
}
