package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.latchkey.recipes.WorkDistributor;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.core.ConditionTimeoutException;

/** What DistributionRules checks on a group of distributors: spreads, holders, moves and double holds. */
final class DistributionChecks {
    private DistributionChecks() {}

    static List<String> items(int n) {
        return IntStream.range(0, n).mapToObj(i -> "item-" + i).collect(Collectors.toList());
    }

    /** Waits until {@code condition} holds, polling every 20 ms; fails with {@code failure}'s message if not in time. */
    static void awaitOrFail(Duration within, Callable<Boolean> condition, Supplier<String> failure) {
        try {
            Tck.await(within).pollInterval(Duration.ofMillis(20)).until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(failure.get());
        }
    }

    /**
     * As below, failing at once when {@code tracker} sees an item held twice: a distributor that double-holds is broken
     * whatever spread it reaches, and waiting out {@code within} would only make it fail slowly.
     */
    static void awaitSpread(
            List<WorkDistributor> instances, int items, int most, Duration within, ItemTracker tracker) {
        awaitSpread(instances, items, most, within, () -> String.valueOf(tracker.violations()), () -> {
            List<String> violations = tracker.violations();
            if (!violations.isEmpty()) {
                throw new AssertionError("while waiting for an even spread of " + items + " items: " + violations);
            }
        });
    }

    /** Waits until every item is held by one of {@code instances}, each holding at most {@code most}. */
    static void awaitSpread(
            List<WorkDistributor> instances, int items, int most, Duration within, Supplier<String> context) {
        awaitSpread(instances, items, most, within, context, () -> {});
    }

    static void awaitSpread(
            List<WorkDistributor> instances,
            int items,
            int most,
            Duration within,
            Supplier<String> context,
            Runnable failFast) {
        awaitOrFail(
                within,
                () -> {
                    failFast.run();
                    int total = 0;
                    for (WorkDistributor d : instances) {
                        int n = d.assigned().size();
                        if (n > most) {
                            return false;
                        }
                        total += n;
                    }
                    return total == items;
                },
                () -> "no even spread of " + items + " items (at most " + most + " each) within " + within + ": "
                        + describe(instances) + "; " + context.get());
    }

    static String describe(List<WorkDistributor> instances) {
        return instances.stream()
                .map(d -> d.instanceId() + "=" + d.assigned())
                .collect(Collectors.joining(", ", "{", "}"));
    }

    static Map<String, String> holders(List<WorkDistributor> instances) {
        Map<String, String> holder = new HashMap<>();
        for (WorkDistributor d : instances) {
            d.assigned().forEach(item -> holder.put(item, d.instanceId()));
        }
        return holder;
    }

    static int moved(Map<String, String> before, Map<String, String> after) {
        int moved = 0;
        for (Map.Entry<String, String> e : after.entrySet()) {
            if (before.containsKey(e.getKey()) && !before.get(e.getKey()).equals(e.getValue())) {
                moved++;
            }
        }
        return moved;
    }

    static void assertNoDoubleHolds(ItemTracker tracker) {
        assertEquals(List.of(), tracker.violations(), "items held twice or tokens that did not rise");
    }
}
