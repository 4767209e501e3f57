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
 *   <li>{@code primitiveRules} (on): whether the read-write lock and semaphore groups run. A variant that changes only
 *       the transport of a configuration that runs them (TLS, a JDBC driver, a larger quorum) may turn them off too:
 *       the variant runs the same store scripts, and the lock groups prove its transport.</li>
 *   <li>{@code faultRules} (on): whether the process, clock and network fault groups and the history rule run (child
 *       JVMs, libfaketime, a fault proxy; about 20 s per configuration). A transport variant may turn them off as it does the recipes.</li>
 *   <li>{@code pausedHolderKeepsItsLock} (off): a store whose grant lives as long as the holder's connection keeps a
 *       SIGSTOPped holder's lock; see {@link #pausedHolderKeepsItsLock()}.</li>
 *   <li>{@code minorityCut} (on): whether the minority-cut network rule applies to a proxied client with three
 *       endpoints or more. Off for a store whose endpoints are not interchangeable replicas of one quorum: one that
 *       shards names over its endpoints (Redis Cluster: a cut master takes its slots with it) or whose endpoints play
 *       different roles (Redis Sentinel: the Sentinels and the master).</li>
 *   <li>{@code historyDuration} (3 s): the multi-name history rule's run; the {@code soak} profile makes it 60 s.</li>
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
    private final boolean primitiveRules;
    private final boolean pausedHolderKeepsItsLock;
    private final boolean faultRules;
    private final boolean minorityCut;
    private final Duration historyDuration;

    private TckSettings(Builder b) {
        this.recipeRules = b.recipeRules;
        this.primitiveRules = b.primitiveRules;
        this.shortLease = b.shortLease;
        this.slack = b.slack;
        this.wakeUp = b.wakeUp;
        this.exclusionClients = b.exclusionClients;
        this.exclusionThreads = b.exclusionThreads;
        this.exclusionRounds = b.exclusionRounds;
        this.pausedHolderKeepsItsLock = b.pausedHolderKeepsItsLock;
        this.faultRules = b.faultRules;
        this.minorityCut = b.minorityCut;
        this.historyDuration = b.historyDuration;
    }

    /**
     * The defaults listed above.
     *
     * @return the default settings
     */
    public static TckSettings defaults() {
        return builder().build();
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
     * A builder holding these settings.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder()
                .shortLease(shortLease)
                .slack(slack)
                .wakeUp(wakeUp)
                .exclusionClients(exclusionClients)
                .exclusionThreads(exclusionThreads)
                .exclusionRounds(exclusionRounds)
                .recipeRules(recipeRules)
                .primitiveRules(primitiveRules)
                .pausedHolderKeepsItsLock(pausedHolderKeepsItsLock)
                .faultRules(faultRules)
                .minorityCut(minorityCut)
                .historyDuration(historyDuration);
    }

    /**
     * Whether the recipe rule groups run on this configuration.
     *
     * @return whether they run
     */
    public boolean recipeRules() {
        return recipeRules;
    }

    /**
     * Whether the read-write lock and semaphore groups run on this configuration.
     *
     * @return whether they run
     */
    public boolean primitiveRules() {
        return primitiveRules;
    }

    /**
     * The lease of tests that wait for expiry.
     *
     * @return the short lease
     */
    public Duration shortLease() {
        return shortLease;
    }

    /**
     * How late an expiry or a timeout may be reported.
     *
     * @return the slack
     */
    public Duration slack() {
        return slack;
    }

    /**
     * The most a waiter may take to acquire after a release.
     *
     * @return the wake-up bound
     */
    public Duration wakeUp() {
        return wakeUp;
    }

    /**
     * The clients of the exclusion rule.
     *
     * @return the client count
     */
    public int exclusionClients() {
        return exclusionClients;
    }

    /**
     * The threads of the exclusion rule, spread over its clients.
     *
     * @return the thread count
     */
    public int exclusionThreads() {
        return exclusionThreads;
    }

    /**
     * The acquisitions of each thread of the exclusion rule.
     *
     * @return the round count
     */
    public int exclusionRounds() {
        return exclusionRounds;
    }

    /**
     * Whether the process, clock and network fault groups run on this configuration.
     *
     * @return whether they run
     */
    public boolean faultRules() {
        return faultRules;
    }

    /**
     * Whether the minority-cut network rule applies: true unless the store's endpoints are not interchangeable members
     * of one quorum (see the class comment).
     *
     * @return whether a client must survive a minority of its endpoints cut off
     */
    public boolean minorityCut() {
        return minorityCut;
    }

    /**
     * Whether a paused holder keeps its lock however long it is paused: true for a store whose grant lives exactly
     * as long as the holder's connection (a JDBC session-mode lock), where a SIGSTOPped process keeps its socket and
     * so its lock. The pause rule then checks that nobody else is granted the lock meanwhile, instead of expecting
     * another process to take it.
     *
     * @return whether a paused holder keeps its lock
     */
    public boolean pausedHolderKeepsItsLock() {
        return pausedHolderKeepsItsLock;
    }

    /**
     * How long the multi-name history rule runs (16 threads on 4 clients over 10 names). The system property
     * {@value #HISTORY_PROPERTY} overrides it (the {@code soak} build profile sets 60s).
     *
     * @return the history rule's duration
     */
    public Duration historyDuration() {
        String override = System.getProperty(HISTORY_PROPERTY);
        return override == null || override.isBlank() ? historyDuration : Duration.parse("PT" + override.trim());
    }

    /** The system property that overrides {@link #historyDuration()}, as {@code 60s} or {@code 10m}. */
    public static final String HISTORY_PROPERTY = "latchkey.tck.history";

    @Override
    public String toString() {
        return "TckSettings[shortLease=" + shortLease + ", slack=" + slack + ", wakeUp=" + wakeUp + ", exclusion="
                + exclusionThreads + " threads on " + exclusionClients + " clients x " + exclusionRounds + " rounds"
                + (recipeRules ? "" : ", recipe rules off") + (faultRules ? "" : ", fault rules off") + (minorityCut ? "" : ", no minority cut") + (primitiveRules ? "" : ", read-write and semaphore rules off")
                + "]";
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
        private boolean primitiveRules = true;
        private boolean pausedHolderKeepsItsLock;
        private boolean faultRules = true;
        private boolean minorityCut = true;
        private Duration historyDuration = Duration.ofSeconds(3);

        private Builder() {}

        /**
         * Turns the process, clock and network fault groups on or off (see the class comment).
         *
         * @param on whether they run
         * @return this builder
         */
        public Builder faultRules(boolean on) {
            faultRules = on;
            return this;
        }

        /**
         * Says whether a client must keep working with a minority of its endpoints cut off (see the class comment):
         * turn it off for a store that shards names over its endpoints or whose endpoints play different roles.
         *
         * @param applies whether the minority-cut rule applies
         * @return this builder
         */
        public Builder minorityCut(boolean applies) {
            minorityCut = applies;
            return this;
        }

        /**
         * Says that a paused holder keeps its lock however long it is paused (see
         * {@link TckSettings#pausedHolderKeepsItsLock()}).
         *
         * @param keeps whether it keeps it
         * @return this builder
         */
        public Builder pausedHolderKeepsItsLock(boolean keeps) {
            pausedHolderKeepsItsLock = keeps;
            return this;
        }

        /**
         * Sets how long the multi-name history rule runs.
         *
         * @param d the duration
         * @return this builder
         */
        public Builder historyDuration(Duration d) {
            historyDuration = positive(d, "historyDuration");
            return this;
        }

        /**
         * Sets the lease of tests that wait for expiry.
         *
         * @param d the store's smallest lease
         * @return this builder
         */
        public Builder shortLease(Duration d) {
            shortLease = positive(d, "shortLease");
            return this;
        }

        /**
         * Sets how late an expiry or a timeout may be reported.
         *
         * @param d the slack
         * @return this builder
         */
        public Builder slack(Duration d) {
            slack = positive(d, "slack");
            return this;
        }

        /**
         * Sets the most a waiter may take to acquire after a release.
         *
         * @param d the wake-up bound
         * @return this builder
         */
        public Builder wakeUp(Duration d) {
            wakeUp = positive(d, "wakeUp");
            return this;
        }

        /**
         * Sets the clients of the exclusion rule.
         *
         * @param n the client count
         * @return this builder
         */
        public Builder exclusionClients(int n) {
            exclusionClients = atLeast(n, 2, "exclusionClients");
            return this;
        }

        /**
         * Sets the threads of the exclusion rule.
         *
         * @param n the thread count
         * @return this builder
         */
        public Builder exclusionThreads(int n) {
            exclusionThreads = atLeast(n, 2, "exclusionThreads");
            return this;
        }

        /**
         * Sets the acquisitions of each thread of the exclusion rule.
         *
         * @param n the round count
         * @return this builder
         */
        public Builder exclusionRounds(int n) {
            exclusionRounds = atLeast(n, 1, "exclusionRounds");
            return this;
        }

        /**
         * Turns the recipe rule groups on or off.
         *
         * @param on whether they run
         * @return this builder
         */
        public Builder recipeRules(boolean on) {
            recipeRules = on;
            return this;
        }

        /**
         * Turns the read-write lock and semaphore groups on or off (see the class comment).
         *
         * @param on whether they run
         * @return this builder
         */
        public Builder primitiveRules(boolean on) {
            primitiveRules = on;
            return this;
        }

        /**
         * The core groups only: recipe, fault and primitive groups off. For a second run of a backend whose
         * transport or identity differs (TLS, a least-privileged role, another driver) while the whole TCK runs on
         * its main configuration.
         *
         * @return this builder
         */
        public Builder coreRulesOnly() {
            return recipeRules(false).faultRules(false).primitiveRules(false);
        }

        /**
         * The settings as set.
         *
         * @return the settings
         */
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
