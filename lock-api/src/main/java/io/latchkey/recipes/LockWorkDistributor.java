package io.latchkey.recipes;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.LockOptions;
import io.latchkey.spi.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The work distributor: one rebalancing thread per instance owns every change. It holds the membership lock,
 * counts members, gives up surplus items and claims free ones (DistributionPlan decides how many and which); each
 * claimed item's work runs on its own HeldTask thread.
 *
 * Concurrency design. Only the rebalancing thread adds to or removes from `held` (a concurrent map only so that
 * assigned() can read it from any thread) and only it calls the worker's onRevoked, so revocations are serial and
 * never race a claim of the same item. Other threads only wake it: an item's loss listener and close() set
 * `wakeRequested` under `wakeLock` and signal; the thread waits on that condition between rounds. close() then
 * joins the thread, which gives everything up on its way out. No store call runs under `wakeLock`.
 */
final class LockWorkDistributor implements WorkDistributor {
    private static final Logger log = LoggerFactory.getLogger(LockWorkDistributor.class);

    private final LockClient client;
    private final String group;
    private final List<String> items;
    private final int cap;
    private final ItemWorker worker;
    private final LockOptions options;
    private final Duration interval;
    private final String instanceId;
    private final Duration stopTimeout;
    private final String membersPrefix;
    private final String itemsPrefix;

    private final Map<String, HeldTask> held = new ConcurrentHashMap<>();
    private final ReentrantLock wakeLock = new ReentrantLock();
    private final Condition wake = wakeLock.newCondition();
    private boolean wakeRequested;
    private volatile boolean closed;
    private volatile @Nullable Thread thread;
    private @Nullable LockHandle membership;
    private int lastShortfallWarned = -1;

    LockWorkDistributor(
            LockClient client,
            String group,
            List<String> items,
            int cap,
            ItemWorker worker,
            LockOptions options,
            Duration interval,
            String instanceId,
            Duration stopTimeout) {
        this.client = client;
        this.group = group;
        this.items = List.copyOf(items);
        this.cap = cap;
        this.worker = worker;
        this.options = options;
        this.interval = interval;
        this.instanceId = instanceId;
        this.stopTimeout = stopTimeout;
        this.membersPrefix = group + "/members/";
        this.itemsPrefix = group + "/items/";
    }

    @Override
    public WorkDistributor start() {
        wakeLock.lock();
        try {
            if (closed || thread != null) {
                throw new IllegalStateException(
                        "distributor '" + group + "' (instance " + instanceId + ") was already started or closed");
            }
            thread = DaemonThreads.start("latchkey-distributor-" + group + "-" + instanceId, this::run);
        } finally {
            wakeLock.unlock();
        }
        return this;
    }

    @Override
    public String instanceId() {
        return instanceId;
    }

    @Override
    public Set<String> assigned() {
        Set<String> mine = new TreeSet<>();
        held.forEach((item, task) -> {
            if (task.handle().isValid()) {
                mine.add(item);
            }
        });
        return mine;
    }

    @Override
    public Set<String> members() {
        Set<String> ids = new TreeSet<>();
        for (LockInfo info : client.list(membersPrefix)) {
            ids.add(info.name().substring(membersPrefix.length()));
        }
        return ids;
    }

    @Override
    public Map<String, String> assignments() {
        Map<String, String> owners = new TreeMap<>();
        for (LockInfo info : client.list(itemsPrefix)) {
            owners.put(info.name().substring(itemsPrefix.length()), info.owner());
        }
        return owners;
    }

    @Override
    public void close() {
        Thread t;
        wakeLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            t = thread;
            wakeRequested = true;
            wake.signalAll();
        } finally {
            wakeLock.unlock();
        }
        if (t == null) {
            return;
        }
        try {
            t.join(stopTimeout.multipliedBy(2).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (!closed) {
            try {
                rebalance();
            } catch (RuntimeException e) { // LockException included: a store failure ends only this round
                log.warn(
                        "distributor '{}' (instance {}): a rebalancing round failed on {}; retrying next round",
                        group,
                        instanceId,
                        client.backend(),
                        e);
            }
            awaitNextRound();
        }
        for (String item : new ArrayList<>(held.keySet())) {
            giveUp(item);
        }
        LockHandle m = membership;
        if (m != null) {
            m.close();
        }
    }

    private void rebalance() {
        reapLost();
        boolean member = ensureMembership();
        Set<String> members = members();
        int live = members.size() + (member && !members.contains(instanceId) ? 1 : 0);
        int target = DistributionPlan.target(items.size(), live, cap);
        warnIfShort(live);
        if (held.size() > target) {
            List<String> mine = DistributionPlan.byPreference(instanceId, held.keySet());
            for (String item : mine.subList(target, mine.size())) {
                giveUp(item); // the least preferred go first
            }
        } else if (held.size() < target) {
            claim(target);
        }
    }

    /** Holds the membership lock; false if it could not (another instance uses this id, or the store failed). */
    private boolean ensureMembership() {
        LockHandle m = membership;
        if (m != null && m.isValid()) {
            return true;
        }
        Optional<LockHandle> got =
                client.lock(membersPrefix + instanceId, options).tryAcquire();
        if (got.isEmpty()) {
            log.warn("distributor '{}': instance id {} is held by someone else; retrying", group, instanceId);
            return false;
        }
        membership = got.get();
        return true;
    }

    private void claim(int target) {
        Set<String> taken = new HashSet<>();
        for (LockInfo info : client.list(itemsPrefix)) {
            taken.add(info.name().substring(itemsPrefix.length()));
        }
        for (String item : DistributionPlan.byPreference(instanceId, items)) {
            if (held.size() >= target || closed) {
                return;
            }
            if (held.containsKey(item) || taken.contains(item)) {
                continue;
            }
            DistributedLock lock = client.lock(itemsPrefix + item, options);
            Optional<LockHandle> grant = lock.tryAcquire();
            if (grant.isPresent()) {
                LockHandle handle = grant.get();
                handle.onLost(loss -> wakeUp());
                held.put(
                        item,
                        new HeldTask(
                                        "latchkey-item-" + group + "/" + item,
                                        handle,
                                        h -> worker.onAssigned(item, h),
                                        false)
                                .start());
            }
        }
    }

    /** Drops items whose grant was lost, once their work has returned. */
    private void reapLost() {
        for (Map.Entry<String, HeldTask> e : new ArrayList<>(held.entrySet())) {
            if (!e.getValue().handle().isValid()) {
                giveUp(e.getKey());
            }
        }
    }

    /** Cancels the item's work, waits for it, releases the item and tells the worker. */
    private void giveUp(String item) {
        HeldTask task = held.get(item);
        if (task == null) {
            return;
        }
        task.cancel(HeldTask.Cancellation.STOPPED);
        try {
            if (!task.awaitEnd(stopTimeout)) {
                log.warn(
                        "distributor '{}': the work on item '{}' did not return within {} of being cancelled",
                        group,
                        item,
                        stopTimeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        task.handle().close();
        held.remove(item);
        try {
            worker.onRevoked(item);
        } catch (RuntimeException e) {
            log.warn("distributor '{}': onRevoked('{}') failed; ignored", group, item, e);
        }
    }

    private void warnIfShort(int live) {
        int shortfall = Math.max(0, items.size() - (int) Math.min(Integer.MAX_VALUE, (long) cap * Math.max(1, live)));
        if (shortfall > 0 && shortfall != lastShortfallWarned) {
            log.warn(
                    "distributor '{}': {} live instances with a cap of {} cannot hold all {} items; {} stay"
                            + " unclaimed until more instances join",
                    group,
                    live,
                    cap,
                    items.size(),
                    shortfall);
        }
        lastShortfallWarned = shortfall;
    }

    private void wakeUp() {
        wakeLock.lock();
        try {
            wakeRequested = true;
            wake.signalAll();
        } finally {
            wakeLock.unlock();
        }
    }

    private void awaitNextRound() {
        wakeLock.lock();
        try {
            long left = interval.toNanos();
            while (!wakeRequested && !closed && left > 0) {
                left = wake.awaitNanos(left);
            }
            wakeRequested = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            wakeLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "WorkDistributor[" + group + ", instance " + instanceId + ", " + held.size() + " of " + items.size()
                + " items" + (closed ? ", closed" : "") + "]";
    }
}
