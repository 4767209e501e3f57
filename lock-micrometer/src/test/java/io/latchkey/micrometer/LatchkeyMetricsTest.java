package io.latchkey.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The meters on the in-memory store: every event the listener sees, the name guard, percentiles and close. */
class LatchkeyMetricsTest {
    private LockClient client;
    private SimpleMeterRegistry registry;

    @BeforeEach
    void open() {
        client = Latchkey.connect("mem:");
        registry = new SimpleMeterRegistry();
    }

    @AfterEach
    void close() {
        client.close();
    }

    private Timer acquireTimer(String outcome) {
        return registry.find("latchkey.acquire")
                .tags("backend", "mem", "outcome", outcome)
                .timer();
    }

    private double counted(String meter, String... tags) {
        Counter c = registry.find(meter).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    @DisplayName("acquire, hold and release are timed; the gauge counts what the client holds")
    void acquireHoldRelease() {
        LatchkeyMetrics.of(client).bindTo(registry);
        DistributedLock lock = client.lock("orders");
        LockHandle h = lock.tryAcquire().orElseThrow();
        assertThat(registry.get("latchkey.held").tags("backend", "mem").gauge().value())
                .isEqualTo(1);
        assertThat(acquireTimer("acquired").count()).isEqualTo(1);
        h.release();
        assertThat(registry.get("latchkey.held").gauge().value()).isZero();
        Timer hold = registry.get("latchkey.hold").tags("backend", "mem").timer();
        assertThat(hold.count()).isEqualTo(1);
        assertThat(registry.find("latchkey.acquire").tagKeys("lock").meters())
                .as("no lock tag unless asked for")
                .isEmpty();
    }

    @Test
    @DisplayName("a busy try counts as timeout, an interrupted wait as error")
    void outcomes() throws Exception {
        LatchkeyMetrics.of(client).bindTo(registry);
        LockHandle held = client.lock("busy").tryAcquire().orElseThrow();
        Optional<LockHandle> other = CompletableFuture.supplyAsync(() -> {
                    try {
                        return client.lock("busy").tryAcquire(Duration.ofMillis(50));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .get();
        assertThat(other).isEmpty();
        assertThat(acquireTimer("timeout").count()).isEqualTo(1);
        assertThat(acquireTimer("timeout").totalTime(java.util.concurrent.TimeUnit.MILLISECONDS))
                .as("the wait is recorded")
                .isGreaterThanOrEqualTo(40);
        CompletableFuture<Throwable> interrupted = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                client.lock("busy").acquire(Duration.ofSeconds(30));
                interrupted.complete(null);
            } catch (InterruptedException e) {
                interrupted.complete(e);
            }
        });
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
        waiter.interrupt();
        assertThat(interrupted.get()).isInstanceOf(InterruptedException.class);
        assertThat(acquireTimer("error").count()).as("an interrupted wait").isEqualTo(1);
        held.release();
    }

    @Test
    @DisplayName("renewals are counted, and a grant an operator removed is counted as a loss by reason")
    void renewalsAndLosses() {
        LatchkeyMetrics.of(client).bindTo(registry);
        LockOptions fast = LockOptions.builder()
                .lease(Duration.ofMillis(600))
                .renewInterval(Duration.ofMillis(100))
                .build();
        LockHandle h = client.lock("renewed", fast).tryAcquire().orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> counted("latchkey.renewals", "result", "renewed") >= 2);
        assertThat(client.forceRelease("renewed")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> !h.isValid());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> counted("latchkey.losses", "reason", "released_by_admin") == 1);
        assertThat(counted("latchkey.renewals", "result", "failed")).isZero();
    }

    @Test
    @DisplayName("the lock tag: one value per name up to the limit, then _other")
    void lockNameTagIsBounded() {
        LatchkeyMetrics.builder(client).lockNameTag(2).build().bindTo(registry);
        for (String name : new String[] {"a", "b", "c", "d", "a"}) {
            client.lock(name).tryAcquire().orElseThrow().release();
        }
        assertThat(registry.find("latchkey.acquire").tag("lock", "a").timer().count())
                .isEqualTo(2);
        assertThat(registry.find("latchkey.acquire").tag("lock", "b").timer().count())
                .isEqualTo(1);
        assertThat(registry.find("latchkey.acquire")
                        .tag("lock", "_other")
                        .timer()
                        .count())
                .isEqualTo(2);
        assertThat(registry.find("latchkey.acquire").meters())
                .extracting(m -> m.getId().getTag("lock"))
                .containsExactlyInAnyOrder("a", "b", "_other");
    }

    @Test
    @DisplayName("percentiles and common tags reach the timers")
    void percentilesAndCommonTags() {
        LatchkeyMetrics.builder(client)
                .percentiles(0.5, 0.99)
                .tags(Tags.of("app", "billing"))
                .build()
                .bindTo(registry);
        client.lock("p").tryAcquire().orElseThrow().release();
        Timer t = registry.get("latchkey.acquire")
                .tags("app", "billing", "backend", "mem")
                .timer();
        assertThat(t.takeSnapshot().percentileValues()).hasSize(2);
    }

    @Test
    @DisplayName("close stops the recording; the client stays usable")
    void closeStopsRecording() {
        LatchkeyMetrics metrics = LatchkeyMetrics.of(client);
        metrics.bindTo(registry);
        client.lock("x").tryAcquire().orElseThrow().release();
        metrics.close();
        client.lock("x").tryAcquire().orElseThrow().release();
        assertThat(acquireTimer("acquired").count()).isEqualTo(1);
        assertThat(registry.getMeters()).extracting(Meter::getId).isNotEmpty();
    }

    @Test
    @DisplayName("bad builder input is refused with what was wrong and what is allowed")
    void badInput() {
        assertThatThrownBy(() -> LatchkeyMetrics.builder(client).percentiles(0.5, 1.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 0 and 1")
                .hasMessageContaining("1.5");
        assertThatThrownBy(() -> LatchkeyMetrics.builder(client).lockNameTag(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 0 (no lock tag) and 10000, was -1");
    }

    @Test
    @DisplayName("the backend tag is the description's scheme")
    void backendTag() {
        assertThat(LatchkeyMetrics.backendTag("redis://127.0.0.1:6379")).isEqualTo("redis");
        assertThat(LatchkeyMetrics.backendTag("redlock://a:1,b:2,c:3 [3 nodes, quorum 2]"))
                .isEqualTo("redlock");
        assertThat(LatchkeyMetrics.backendTag("jdbc:postgresql://db:5432/app")).isEqualTo("jdbc:postgresql");
        assertThat(LatchkeyMetrics.backendTag("mem:")).isEqualTo("mem");
        assertThat(LatchkeyMetrics.backendTag("mem")).isEqualTo("mem");
    }
}
