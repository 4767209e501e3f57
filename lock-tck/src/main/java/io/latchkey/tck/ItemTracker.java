package io.latchkey.tck;

import io.latchkey.LockHandle;
import io.latchkey.recipes.ItemWorker;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The work of {@link DistributionRules}: per item, an {@link OverlapDetector} (two instances working one item at
 * once is a double hold) and the fencing tokens of its grants, which must rise. Each instance gets its own
 * {@link #worker(String)}; the work runs until cancelled, as real item work would.
 */
final class ItemTracker {
    private final Map<String, OverlapDetector> detectors = new ConcurrentHashMap<>();
    private final Map<String, List<Long>> tokens = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final Set<String> dead = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicInteger> working = new ConcurrentHashMap<>();

    /**
     * Ends the instance's work as its process's death would, and waits until none of it runs: a rule that then
     * crashes the instance's client models a crashed process, whose work died with it. (A session store frees a
     * crashed client's locks at once, so work left running in this JVM would overlap its successor's.)
     */
    void kill(String instance) {
        dead.add(instance);
        Tck.await(java.time.Duration.ofSeconds(10))
                .until(() -> working.getOrDefault(instance, new AtomicInteger()).get() == 0);
    }

    ItemWorker worker(String instance) {
        return new ItemWorker() {
            @Override
            public void onAssigned(String item, LockHandle handle) {
                List<Long> seen = tokens.computeIfAbsent(item, k -> new CopyOnWriteArrayList<>());
                if (!seen.isEmpty() && seen.get(seen.size() - 1) >= handle.fencingToken()) {
                    violations.add("item " + item + " got token " + handle.fencingToken() + " after " + seen);
                }
                seen.add(handle.fencingToken());
                OverlapDetector d = detectors.computeIfAbsent(item, k -> new OverlapDetector());
                AtomicInteger count = working.computeIfAbsent(instance, k -> new AtomicInteger());
                count.incrementAndGet();
                d.enter(instance);
                try {
                    while (handle.isValid() && !dead.contains(instance)) {
                        Thread.sleep(5);
                    }
                } catch (InterruptedException e) {
                    // cancelled: the item was given up or lost
                } finally {
                    d.exit(instance);
                    count.decrementAndGet();
                }
            }
        };
    }

    /** Every double hold and token regression seen so far, described. */
    List<String> violations() {
        List<String> all = new java.util.ArrayList<>(violations);
        detectors.forEach((item, d) -> {
            if (d.overlaps() > 0) {
                all.add("item " + item + " held twice: " + d.firstOverlap());
            }
        });
        return all;
    }
}
