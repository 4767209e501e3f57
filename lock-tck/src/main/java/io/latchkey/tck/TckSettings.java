package io.latchkey.tck;

import java.time.Duration;

/**
 * Timing and size knobs of the TCK, for backends whose store needs other values (a lease granularity of
 * whole seconds, a slow cluster). Immutable; adjust with {@link #toBuilder()}.
 *
 * <ul>
 *   <li>{@code shortLease} (1 s): the lease of tests that wait for expiry. Use the store's smallest lease.</li>
 *   <li>{@code slack} (2 s): how late an expiry or a timeout may be reported. Generous on purpose: the
 *       TCK proves behaviour, JMH measures speed.</li>
 *   <li>{@code wakeUp} (2 s): the most a waiter may take to acquire after a release.</li>
 *   <li>{@code recipeRules} (on): whether the recipe groups (elector, exclusive tasks, work distribution,
 *       multi-lock) run. A backend runs them on its primary configuration; a variant that only changes the
 *       transport (TLS, a JDBC driver, a larger quorum) may turn them off to keep its build short, since the recipes
 *       use nothing but the lock contract the variant already proves.</li>
 *   <li>{@code exclusionClients} (8: two threads per client, so both the store and the core's local queue are exercised), {@code exclusionThreads} (16), {@code exclusionRounds} (500).</li>
 * </ul>
 */
public final class TckSettings {
    private final Duration shortLease;
    private final Duration slack;
    private final Duration wakeUp;
    private final int exclusionClients;
    private final int exclusionThreads;
    private final int exclusionRounds;
    private final boolean recipeRules;

    private TckSettings(Builder b) {
        this.recipeRules = b.recipeRules;
        this.shortLease = b.shortLease;
        this.slack = b.slack;
        this.wakeUp = b.wakeUp;
        this.exclusionClients = b.exclusionClients;
        this.exclusionThreads = b.exclusionThreads;
        this.exclusionRounds = b.exclusionRounds;
    }

    public static TckSettings defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder()
                .shortLease(shortLease)
                .slack(slack)
                .wakeUp(wakeUp)
                .exclusionClients(exclusionClients)
                .exclusionThreads(exclusionThreads)
                .exclusionRounds(exclusionRounds)
                .recipeRules(recipeRules);
    }

    /** Whether the recipe rule groups run on this configuration. */
    public boolean recipeRules() {
        return recipeRules;
    }

    public Duration shortLease() {
        return shortLease;
    }

    public Duration slack() {
        return slack;
    }

    public Duration wakeUp() {
        return wakeUp;
    }

    public int exclusionClients() {
        return exclusionClients;
    }

    public int exclusionThreads() {
        return exclusionThreads;
    }

    public int exclusionRounds() {
        return exclusionRounds;
    }

    @Override
    public String toString() {
        return "TckSettings[shortLease=" + shortLease + ", slack=" + slack + ", wakeUp=" + wakeUp + ", exclusion="
                + exclusionThreads + " threads on " + exclusionClients + " clients x " + exclusionRounds + " rounds"
                + (recipeRules ? "" : ", recipe rules off") + "]";
    }

    /** Builder; every setter checks its argument. */
    public static final class Builder {
        private Duration shortLease = Duration.ofSeconds(1);
        private Duration slack = Duration.ofSeconds(2);
        private Duration wakeUp = Duration.ofSeconds(2);
        private int exclusionClients = 8;
        private int exclusionThreads = 16;
        private int exclusionRounds = 500;
        private boolean recipeRules = true;

        private Builder() {}

        public Builder shortLease(Duration d) {
            shortLease = positive(d, "shortLease");
            return this;
        }

        public Builder slack(Duration d) {
            slack = positive(d, "slack");
            return this;
        }

        public Builder wakeUp(Duration d) {
            wakeUp = positive(d, "wakeUp");
            return this;
        }

        public Builder exclusionClients(int n) {
            exclusionClients = atLeast(n, 2, "exclusionClients");
            return this;
        }

        public Builder exclusionThreads(int n) {
            exclusionThreads = atLeast(n, 2, "exclusionThreads");
            return this;
        }

        public Builder exclusionRounds(int n) {
            exclusionRounds = atLeast(n, 1, "exclusionRounds");
            return this;
        }

        public Builder recipeRules(boolean on) {
            recipeRules = on;
            return this;
        }

        public TckSettings build() {
            return new TckSettings(this);
        }

        private static Duration positive(Duration d, String what) {
            if (d == null || d.isZero() || d.isNegative()) {
                throw new IllegalArgumentException(what + " must be a positive duration, was " + d);
            }
            return d;
        }

        private static int atLeast(int n, int min, String what) {
            if (n < min) {
                throw new IllegalArgumentException(what + " must be at least " + min + ", was " + n);
            }
            return n;
        }
    }
}
