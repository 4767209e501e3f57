package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/*
 * History at scale: 16 threads on 4 clients take 10 names at random for a while (3 s in a normal build, 60 s in the
 * soak profile: TckSettings.historyDuration / -Dlatchkey.tck.history). Each name has its own overlap detector, its
 * own count of holders inside at once (for the maximum) and its own lost-update register, checked against the number
 * of grants of that name: a double grant shows as an overlap, a maximum above one, or a register short of its grants.
 * The summary line (FIGURE history ...) is what the soak profile's summary collects.
 */
/** §4.1 exclusion over time: many names, many clients, a history checked name by name. */
public interface HistoryRules extends TckRules {
    /** Threads of the history rule. */
    int HISTORY_THREADS = 16;
    /** Clients the threads share. */
    int HISTORY_CLIENTS = 4;
    /** Names the threads pick from. */
    int HISTORY_NAMES = 10;

    /**
     * Rule §4.1 history: 16 threads on 4 clients over 10 names never overlap and lose no update, for the history's
     * duration.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("history")
    @DisplayName("§4.1 history: 16 threads on 4 clients over 10 names never overlap and lose no update")
    default void history_manyNamesNeverOverlapAndLoseNoUpdate() throws Exception {
        Tck.assumeFaultRules(tck()); // a transport variant's history is its primary configuration's
        Duration duration = tck().settings().historyDuration();
        List<LockClient> clients = new ArrayList<>();
        for (int i = 0; i < HISTORY_CLIENTS; i++) {
            clients.add(tck().newClient());
        }
        String[] names = new String[HISTORY_NAMES];
        OverlapDetector[] detectors = new OverlapDetector[HISTORY_NAMES];
        LostUpdateRegister[] registers = new LostUpdateRegister[HISTORY_NAMES];
        AtomicInteger[] inside = new AtomicInteger[HISTORY_NAMES];
        AtomicLong[] grants = new AtomicLong[HISTORY_NAMES];
        AtomicInteger maxInside = new AtomicInteger();
        for (int n = 0; n < HISTORY_NAMES; n++) {
            names[n] = tck().name("history-" + n);
            detectors[n] = new OverlapDetector();
            registers[n] = new LostUpdateRegister();
            inside[n] = new AtomicInteger();
            grants[n] = new AtomicLong();
        }
        LockOptions options = Tck.fastRetry(LockOptions.builder().lease(Duration.ofSeconds(30)).build());
        long end = System.nanoTime() + duration.toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(HISTORY_THREADS);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < HISTORY_THREADS; t++) {
                LockClient client = clients.get(t % HISTORY_CLIENTS);
                String who = "thread-" + t;
                futures.add(pool.submit(() -> {
                    while (System.nanoTime() - end < 0) {
                        int n = ThreadLocalRandom.current().nextInt(HISTORY_NAMES);
                        DistributedLock lock = client.lock(names[n], options);
                        try (LockHandle h = lock.acquire(Duration.ofSeconds(60))) {
                            grants[n].incrementAndGet();
                            maxInside.accumulateAndGet(inside[n].incrementAndGet(), Math::max);
                            detectors[n].enter(who);
                            registers[n].increment();
                            detectors[n].exit(who);
                            inside[n].decrementAndGet();
                            if (!h.isValid()) {
                                throw new AssertionError("a 30 s renewed grant of '" + names[n] + "' ended while held");
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(duration.toSeconds() + 150, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long total = 0;
        long lost = 0;
        int overlaps = 0;
        String firstOverlap = null;
        for (int n = 0; n < HISTORY_NAMES; n++) {
            total += grants[n].get();
            lost += grants[n].get() - registers[n].value();
            overlaps += detectors[n].overlaps();
            if (firstOverlap == null) {
                firstOverlap = detectors[n].firstOverlap();
            }
        }
        Tck.figure(
                "FIGURE history on {}: {} s, {} threads on {} clients over {} names: {} grants ({} per s), max holders"
                        + " of one name at once {}, overlaps {}, lost updates {}",
                clients.get(0).backend(),
                duration.toSeconds(),
                HISTORY_THREADS,
                HISTORY_CLIENTS,
                HISTORY_NAMES,
                total,
                total / Math.max(1, duration.toSeconds()),
                maxInside.get(),
                overlaps,
                lost);
        String overlapText = firstOverlap;
        assertEquals(0, overlaps, () -> "two holders of one name at once (LockBackend.tryAcquire granted a held"
                + " lock): " + overlapText);
        assertEquals(1, maxInside.get(), "the most holders of one name at once");
        assertEquals(0, lost, "updates lost by concurrent holders (the register fell short of the grants)");
    }
}
