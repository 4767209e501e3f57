package io.latchkey.tck.selftest;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ItemWorker;
import io.latchkey.recipes.WorkDistributor;
import io.latchkey.spi.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/*
 * A stand-in work distributor for RecipeSelfTest that gives item i to the member ranked i mod M (members sorted by
 * id). Its spread is even and exclusive (each item is a lock; a worker is stopped before its lock is released), so it
 * breaks one promise only: when M changes, most items change hands, where rendezvous hashing moves about N/M.
 *
 * Concurrency: one daemon thread runs the rounds and alone changes `held`; assigned() reads the concurrent map.
 */
final class ModuloDistributor implements WorkDistributor {
    private static final Duration ROUND = Duration.ofMillis(30);

    private final LockClient client;
    private final String group;
    private final List<String> items;
    private final int cap;
    private final String instanceId;
    private final ItemWorker worker;
    private final LockOptions options;
    private final Map<String, Claim> held = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private Thread rounds;
    private LockHandle membership;

    private record Claim(LockHandle handle, Thread work) {}

    ModuloDistributor(
            LockClient client,
            String group,
            List<String> items,
            int cap,
            String instanceId,
            ItemWorker worker,
            LockOptions options) {
        this.client = client;
        this.group = group;
        this.items = List.copyOf(items);
        this.cap = cap;
        this.instanceId = instanceId;
        this.worker = worker;
        this.options = options;
    }

    @Override
    public WorkDistributor start() {
        try {
            membership = client.lock(group + "/members/" + instanceId, options).acquire(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while joining " + group, e);
        }
        rounds = DaemonThreads.start("modulo-distributor-" + instanceId, this::runRounds);
        return this;
    }

    private void runRounds() {
        while (!closed) {
            try {
                round();
            } catch (RuntimeException e) {
                // the next round tries again
            }
            LockSupport.parkNanos(ROUND.toNanos());
        }
        new ArrayList<>(held.keySet()).forEach(this::giveUp);
    }

    private void round() {
        List<String> members = new ArrayList<>(members());
        int rank = members.indexOf(instanceId);
        Set<String> wanted = new TreeSet<>();
        for (int i = 0; rank >= 0 && i < items.size() && wanted.size() < cap; i++) {
            if (i % members.size() == rank) {
                wanted.add(items.get(i));
            }
        }
        for (String item : new ArrayList<>(held.keySet())) {
            if (!wanted.contains(item) || !held.get(item).handle().isValid()) {
                giveUp(item);
            }
        }
        for (String item : wanted) {
            if (!held.containsKey(item)) {
                Optional<LockHandle> got =
                        client.lock(group + "/items/" + item, options).tryAcquire();
                got.ifPresent(h -> held.put(item, new Claim(h, DaemonThreads.start("modulo-item-" + item, () -> {
                    try {
                        worker.onAssigned(item, h);
                    } catch (Exception e) {
                        // interrupted or failed: the item stays claimed until given up, as with the real recipe
                    }
                }))));
            }
        }
    }

    private void giveUp(String item) {
        Claim claim = held.remove(item);
        claim.work().interrupt();
        try {
            claim.work().join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        claim.handle().release();
        worker.onRevoked(item);
    }

    @Override
    public String instanceId() {
        return instanceId;
    }

    @Override
    public Set<String> assigned() {
        return Set.copyOf(held.keySet());
    }

    @Override
    public Set<String> members() {
        Set<String> members = new TreeSet<>();
        String prefix = group + "/members/";
        for (LockInfo info : client.list(prefix)) {
            members.add(info.name().substring(prefix.length()));
        }
        return members;
    }

    @Override
    public Map<String, String> assignments() {
        Map<String, String> owners = new TreeMap<>();
        String prefix = group + "/items/";
        for (LockInfo info : client.list(prefix)) {
            owners.put(info.name().substring(prefix.length()), info.owner());
        }
        return owners;
    }

    @Override
    public void close() {
        closed = true;
        Thread t = rounds;
        if (t != null) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (membership != null) {
            membership.release();
        }
    }
}
