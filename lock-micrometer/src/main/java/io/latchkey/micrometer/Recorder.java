package io.latchkey.micrometer;

import io.latchkey.LockListener;
import io.latchkey.LockLoss;
import io.latchkey.LockTimeoutException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/*
 * The listener that records one client's events into one registry. Meters are looked up once per (kind, tag values)
 * and cached, so an event costs a map lookup and the meter's own update. It is called on the thread of the event and
 * never blocks; Micrometer's meters are thread-safe.
 */
final class Recorder implements LockListener {
    private static final String NO_LOCK_TAG = "";

    private final MeterRegistry registry;
    private final Tags common;
    private final double[] percentiles;
    private final boolean histogram;
    private final LockNameTags names;
    private final Map<String, Timer> acquire = new ConcurrentHashMap<>();
    private final Map<String, Timer> hold = new ConcurrentHashMap<>();
    private final Map<String, Counter> renewals = new ConcurrentHashMap<>();
    private final Map<String, Counter> losses = new ConcurrentHashMap<>();

    Recorder(MeterRegistry registry, Tags common, double[] percentiles, boolean histogram, LockNameTags names) {
        this.registry = registry;
        this.common = common;
        this.percentiles = percentiles;
        this.histogram = histogram;
        this.names = names;
    }

    @Override
    public void acquired(String name, long fencingToken, Duration waited) {
        acquireTimer(name, "acquired").record(waited);
    }

    @Override
    public void acquireFailed(String name, Duration waited, Throwable reason) {
        acquireTimer(name, reason instanceof LockTimeoutException ? "timeout" : "error")
                .record(waited);
    }

    @Override
    public void released(String name, long fencingToken, Duration held) {
        String lock = lockTag(name);
        hold.computeIfAbsent(lock, l -> timer("latchkey.hold", "How long a grant was held", tags(l)))
                .record(held);
    }

    @Override
    public void renewed(String name, long fencingToken) {
        renewals(name, "renewed").increment();
    }

    @Override
    public void renewalFailed(String name, long fencingToken, Throwable reason) {
        renewals(name, "failed").increment();
    }

    @Override
    public void lost(LockLoss loss) {
        String lock = lockTag(loss.name());
        String reason = LockNameTags.lowerCase(loss.reason());
        losses.computeIfAbsent(
                        lock + '\u0000' + reason,
                        k -> Counter.builder("latchkey.losses")
                                .description("Grants lost, by reason")
                                .tags(tags(lock).and("reason", reason))
                                .register(registry))
                .increment();
    }

    private Timer acquireTimer(String name, String outcome) {
        String lock = lockTag(name);
        return acquire.computeIfAbsent(
                lock + '\u0000' + outcome,
                k -> timer(
                        "latchkey.acquire",
                        "Time from asking for a grant to its outcome",
                        tags(lock).and("outcome", outcome)));
    }

    private Counter renewals(String name, String result) {
        String lock = lockTag(name);
        return renewals.computeIfAbsent(
                lock + '\u0000' + result,
                k -> Counter.builder("latchkey.renewals")
                        .description("Lease renewals, by result")
                        .tags(tags(lock).and("result", result))
                        .register(registry));
    }

    private Timer timer(String meter, String description, Tags tags) {
        return Timer.builder(meter)
                .description(description)
                .tags(tags)
                .publishPercentiles(percentiles)
                .publishPercentileHistogram(histogram)
                .register(registry);
    }

    private String lockTag(String name) {
        return names.enabled() ? names.tagFor(name) : NO_LOCK_TAG;
    }

    private Tags tags(String lockTag) {
        return names.enabled() ? common.and("lock", lockTag) : common;
    }
}
