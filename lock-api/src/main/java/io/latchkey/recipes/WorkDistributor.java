package io.latchkey.recipes;

import io.latchkey.Durations;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.Reentrancy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Spreads N items (subscriptions, shards, partitions) over the live instances, at most {@code cap} per instance,
 * each item held by exactly one instance at a time. Membership is itself a lock: each instance holds
 * {@code <group>/members/<instanceId>}; items are {@code <group>/items/<item>}. No other store, no coordinator.
 *
 * <pre>{@code
 * try (WorkDistributor d = WorkDistributor.builder(client, "subscriptions")
 *         .items(subscriptionIds).cap(20)
 *         .worker(new ItemWorker() {
 *             public void onAssigned(String item, LockHandle h) throws InterruptedException { consume(item, h); }
 *         })
 *         .build().start()) { ... }
 * }</pre>
 *
 * <ul>
 *   <li>Every rebalance interval, each instance counts the live members and aims at {@code min(cap, ceil(N /
 *       live))} items: it gives up surplus items (the ones it least prefers, so few move) and claims free ones.</li>
 *   <li>An instance that dies stops renewing; its membership and items expire by the lease, and the others claim
 *       its items within one rebalance interval after that.</li>
 *   <li>If {@code cap × live < N}, some items stay unclaimed until more instances join (logged at WARN).</li>
 * </ul>
 */
public interface WorkDistributor extends AutoCloseable {

    /**
     * A builder for a distributor of the group's items through {@code client}.
     *
     * @param client the client whose locks claim the items
     * @param group the group's name, the namespace of its locks
     * @return a new builder
     */
    static Builder builder(LockClient client, String group) {
        return new Builder(client, group);
    }

    /**
     * Joins the group and starts claiming items, on a thread of its own; returns at once.
     *
     * @return this distributor
     */
    WorkDistributor start();

    /**
     * This instance's id in the group.
     *
     * @return the instance id, unique in the group
     */
    String instanceId();

    /**
     * The items this instance holds now.
     *
     * @return the items held here, a snapshot
     */
    Set<String> assigned();

    /**
     * The live instances' ids, read from the store (one {@code list}).
     *
     * @return the ids of the instances in the group, a snapshot
     */
    Set<String> members();

    /**
     * Every held item and its holder's owner id, read from the store (one {@code list}).
     *
     * @return each held item mapped to its holder's owner id, a snapshot
     */
    Map<String, String> assignments();

    /** Gives up every item (cancelling its work, releasing it) and leaves the group. Idempotent. */
    @Override
    void close();

    /** Builder for a {@link WorkDistributor}; not thread-safe. Each setter checks its argument at once. */
    final class Builder {
        private final LockClient client;
        private final String group;
        private List<String> items = List.of();
        private int cap = Integer.MAX_VALUE;
        private @Nullable ItemWorker worker;
        private LockOptions options = LockOptions.defaults();
        private @Nullable Duration rebalanceInterval;
        private String instanceId = UUID.randomUUID().toString().substring(0, 8);
        private Duration stopTimeout = Duration.ofSeconds(10);

        private Builder(LockClient client, String group) {
            if (client == null) {
                throw new IllegalArgumentException("client must not be null");
            }
            this.client = client;
            this.group = Latchkey.checkLockName(group);
        }

        /**
         * The items: at least one, distinct, each making a valid lock name under the group.
         *
         * @param items the items to spread over the group's instances
         * @return this builder
         */
        public Builder items(Collection<String> items) {
            if (items == null || items.isEmpty()) {
                throw new IllegalArgumentException("items must hold at least one item, was " + items);
            }
            Set<String> distinct = new LinkedHashSet<>();
            for (String item : items) {
                if (item == null) {
                    throw new IllegalArgumentException("items must not contain null");
                }
                Latchkey.checkLockName(group + "/items/" + item);
                if (!distinct.add(item)) {
                    throw new IllegalArgumentException("items must be distinct, but '" + item + "' appears twice");
                }
            }
            this.items = new ArrayList<>(distinct);
            return this;
        }

        /**
         * The most items one instance holds: at least 1; default no cap.
         *
         * @param cap the most items per instance, at least 1
         * @return this builder
         */
        public Builder cap(int cap) {
            if (cap < 1) {
                throw new IllegalArgumentException("cap must be at least 1, was " + cap);
            }
            this.cap = cap;
            return this;
        }

        /**
         * What runs for each claimed item. Required.
         *
         * @param worker called for each item this instance claims and gives up
         * @return this builder
         */
        public Builder worker(ItemWorker worker) {
            if (worker == null) {
                throw new IllegalArgumentException("worker must not be null");
            }
            this.worker = worker;
            return this;
        }

        /**
         * The options of the membership and item locks (default {@link LockOptions#defaults()}: 30 s lease). The
         * lease bounds how long a dead instance's items stay unclaimed. Auto-renewal on, reentrancy NONE.
         *
         * @param options the membership and item locks' options
         * @return this builder
         */
        public Builder options(LockOptions options) {
            if (options == null) {
                throw new IllegalArgumentException("options must not be null");
            }
            if (!options.autoRenew() || options.reentrancy() != Reentrancy.NONE) {
                throw new IllegalArgumentException("a distributor holds items until it gives them up: options must"
                        + " have autoRenew on and reentrancy NONE, were " + options);
            }
            this.options = options;
            return this;
        }

        /**
         * How often each instance recounts members and rebalances: positive; default the renew interval.
         *
         * @param interval the time between rebalances, positive
         * @return this builder
         */
        public Builder rebalanceInterval(Duration interval) {
            this.rebalanceInterval = Durations.requireLease(interval, "rebalanceInterval");
            return this;
        }

        /**
         * This instance's id in the group (default a random 8-character id); one lock-name segment.
         *
         * @param id the instance id, one lock-name segment
         * @return this builder
         */
        public Builder instanceId(String id) {
            if (id == null || id.isEmpty() || id.contains("/")) {
                throw new IllegalArgumentException("instanceId must be non-empty without '/', was '" + id + "'");
            }
            Latchkey.checkLockName(group + "/members/" + id);
            this.instanceId = id;
            return this;
        }

        /**
         * How long giving up an item waits for its work to return (positive; default 10 s).
         *
         * @param timeout the wait for an item's work to return, positive
         * @return this builder
         */
        public Builder stopTimeout(Duration timeout) {
            this.stopTimeout = Durations.requireLease(timeout, "stopTimeout");
            return this;
        }

        /**
         * The distributor, not yet started.
         *
         * @return the distributor; {@link WorkDistributor#start()} joins the group
         */
        public WorkDistributor build() {
            if (items.isEmpty()) {
                throw new IllegalArgumentException("items must be set before build()");
            }
            ItemWorker w = worker;
            if (w == null) {
                throw new IllegalArgumentException("worker must be set before build()");
            }
            Duration interval = rebalanceInterval == null ? options.renewInterval() : rebalanceInterval;
            return new LockWorkDistributor(client, group, items, cap, w, options, interval, instanceId, stopTimeout);
        }
    }
}
