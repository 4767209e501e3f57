package io.latchkey.micrometer;

import io.latchkey.LockClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Micrometer metrics for one {@link LockClient}: bind it to a registry and every lock, read-write lock, semaphore
 * and recipe of that client is measured.
 *
 * <pre>{@code
 * LockClient locks = Latchkey.connect("redis://127.0.0.1:6379");
 * LatchkeyMetrics metrics = LatchkeyMetrics.builder(locks).percentiles(0.5, 0.99).build();
 * metrics.bindTo(registry);          // e.g. a PrometheusMeterRegistry, or Spring Boot's MeterRegistry bean
 * ...
 * metrics.close();                   // stops recording (the client stays open)
 * }</pre>
 *
 * <p>Meters (every one tagged {@code backend}: the client's backend scheme, e.g. {@code redis}, {@code
 * jdbc:postgresql}; plus the builder's common tags; plus {@code lock}, the lock's name, when {@link
 * Builder#lockNameTag(int)} is on):
 *
 * <ul>
 *   <li>{@code latchkey.acquire} (timer): time from asking to the outcome, tag {@code outcome} = {@code acquired},
 *       {@code timeout} (the wait ran out, or a try found the lock busy) or {@code error} (the store failed, the
 *       thread was interrupted, or the client closed).</li>
 *   <li>{@code latchkey.hold} (timer): how long a grant was held, recorded at its release.</li>
 *   <li>{@code latchkey.renewals} (counter): lease renewals, tag {@code result} = {@code renewed} or {@code failed}
 *       (the store could not be reached; the watchdog retries until the grant's validity runs out).</li>
 *   <li>{@code latchkey.losses} (counter): grants lost, tag {@code reason} = {@code expired}, {@code
 *       renewal_failed}, {@code session_lost} or {@code released_by_admin}.</li>
 *   <li>{@code latchkey.held} (gauge): grants this client holds now.</li>
 * </ul>
 *
 * <p>Concurrency: the recording runs on the thread where the event happens (an acquiring thread, a renewal
 * thread); meters are cached in concurrent maps, so recording is a map lookup and an update. Binding and closing may
 * happen on any thread; a metrics object may be bound to several registries.
 */
public final class LatchkeyMetrics implements MeterBinder, AutoCloseable {
    private final LockClient client;
    private final Tags commonTags;
    private final double[] percentiles;
    private final boolean percentileHistogram;
    private final LockNameTags names;
    private final List<Recorder> recorders = new CopyOnWriteArrayList<>();

    private LatchkeyMetrics(Builder b) {
        this.client = b.client;
        this.commonTags = Tags.of(b.tags).and("backend", backendTag(client.backend()));
        this.percentiles = b.percentiles;
        this.percentileHistogram = b.percentileHistogram;
        this.names = new LockNameTags(b.maxLockNames);
    }

    /**
     * Metrics for {@code client}, configured by the builder; nothing is recorded until {@link #bindTo}.
     *
     * @param client the client whose locks are measured
     * @return a new builder
     */
    public static Builder builder(LockClient client) {
        return new Builder(client);
    }

    /**
     * Metrics for {@code client} with the defaults: no lock-name tag, no percentiles.
     *
     * @param client the client whose locks are measured
     * @return the binder; call {@code bindTo(registry)}
     */
    public static LatchkeyMetrics of(LockClient client) {
        return builder(client).build();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        Gauge.builder("latchkey.held", client, c -> c.held().size())
                .tags(commonTags)
                .description("Grants this Latchkey client holds now")
                .strongReference(false)
                .register(registry);
        Recorder recorder = new Recorder(registry, commonTags, percentiles, percentileHistogram, names);
        recorders.add(recorder);
        client.addListener(recorder);
    }

    /** Stops recording into every registry this was bound to. Meters already registered stay in the registries. */
    @Override
    public void close() {
        for (Recorder r : recorders) {
            client.removeListener(r);
        }
        recorders.clear();
    }

    /** The scheme of a backend description: {@code redis://h:6379 …} → {@code redis}, {@code mem:} → {@code mem}. */
    static String backendTag(String description) {
        String d = description.strip();
        int end = d.indexOf("://");
        if (end < 0) {
            end = d.indexOf(':');
        }
        if (end < 0) {
            end = d.indexOf(' ');
        }
        String scheme = end < 0 ? d : d.substring(0, end);
        return scheme.isEmpty() ? "unknown" : scheme;
    }

    /** Immutable options; {@link #build()} checks nothing more than the setters did. */
    public static final class Builder {
        private final LockClient client;
        private Iterable<Tag> tags = Tags.empty();
        private double[] percentiles = new double[0];
        private boolean percentileHistogram;
        private int maxLockNames;

        private Builder(LockClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /**
         * Tags added to every meter (e.g. the application or the lock store's role).
         *
         * @param tags the common tags
         * @return this builder
         */
        public Builder tags(Iterable<Tag> tags) {
            this.tags = Objects.requireNonNull(tags, "tags");
            return this;
        }

        /**
         * Client-side percentiles of the two timers, each in [0, 1] (e.g. 0.5, 0.99); none by default.
         *
         * @param percentiles the percentiles, each in [0, 1]
         * @return this builder
         */
        public Builder percentiles(double... percentiles) {
            for (double p : percentiles) {
                if (!(p >= 0 && p <= 1)) {
                    throw new IllegalArgumentException(
                            "percentiles must be between 0 and 1 (0.99 is p99), was " + Arrays.toString(percentiles));
                }
            }
            this.percentiles = percentiles.clone();
            return this;
        }

        /**
         * Publish a percentile histogram of the timers (for server-side quantiles, e.g. Prometheus); off by default.
         *
         * @param on whether to publish the histogram
         * @return this builder
         */
        public Builder percentileHistogram(boolean on) {
            this.percentileHistogram = on;
            return this;
        }

        /**
         * Tag meters with the lock's name ({@code lock}), for at most {@code maxNames} distinct names: later names are
         * tagged {@value LockNameTags#OTHER}, so a client that locks one name per order id cannot flood the registry.
         * 0 (the default) turns the tag off.
         *
         * @param maxNames the most distinct names tagged, 0 for no tag
         * @return this builder
         */
        public Builder lockNameTag(int maxNames) {
            if (maxNames < 0 || maxNames > LockNameTags.MOST) {
                throw new IllegalArgumentException("lockNameTag(maxNames) must be between 0 (no lock tag) and "
                        + LockNameTags.MOST + ", was " + maxNames);
            }
            this.maxLockNames = maxNames;
            return this;
        }

        /**
         * The binder as configured.
         *
         * @return the binder; call {@code bindTo(registry)}
         */
        public LatchkeyMetrics build() {
            return new LatchkeyMetrics(this);
        }
    }
}
