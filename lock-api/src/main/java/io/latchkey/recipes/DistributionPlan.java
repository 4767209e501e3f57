package io.latchkey.recipes;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/*
 * The pure part of work distribution: how many items this instance aims at, and which items it prefers. Preference
 * is rendezvous (highest-random-weight) hashing of (instance, item): every instance ranks every item differently
 * and consistently, so instances reach for different free items, and an instance giving up surplus gives up the
 * items it least prefers, which keeps churn low. No state, no I/O.
 */
final class DistributionPlan {
    private DistributionPlan() {}

    /** ceil(items / live), capped: what each live instance aims at. */
    static int target(int items, int live, int cap) {
        int instances = Math.max(1, live);
        int even = (items + instances - 1) / instances;
        return Math.min(cap, even);
    }

    /** The items in this instance's order of preference, most preferred first. */
    static List<String> byPreference(String instanceId, Collection<String> items) {
        return items.stream()
                .sorted(Comparator.comparingLong((String item) -> weight(instanceId, item))
                        .reversed()
                        .thenComparing(Comparator.naturalOrder()))
                .toList();
    }

    /** A 64-bit mix of instance and item (FNV-1a, then a finaliser): stable across JVMs and versions. */
    static long weight(String instanceId, String item) {
        long h = 0xcbf29ce484222325L;
        for (byte b : (instanceId + '\u0000' + item).getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h;
    }
}
