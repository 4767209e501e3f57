package io.latchkey.zookeeper;

import io.latchkey.spi.DaemonThreads;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Removes contender nodes whose fate is unknown: a create whose reply was lost, a waiter that gave up or a
 * release that failed while the connection was down. Left alone, such an ephemeral node would block every
 * other contender until the session ends, which it never does while this client lives.
 *
 * Entries are keyed by owner id. Two parties may act on one owner: this cleaner, and a later attempt of the
 * same acquisition (the core retries with the same owner id), which must then handle the leftovers itself
 * (adopt the earliest, delete the rest) without the cleaner deleting a node it has just been granted. Each
 * entry carries a ReentrantLock and a `settled` flag: whoever takes the lock first and finds the entry
 * unsettled settles it; the other side then leaves it alone. The cleaner does its I/O under the entry's lock
 * (never under a shared one), so an attempt that claims an entry waits at most for one cleanup of it.
 *
 * One daemon thread runs the cleanups: at once when an entry is added, again when a connection comes back,
 * and every second while entries remain.
 */
final class OrphanCleaner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OrphanCleaner.class);
    private static final long RETRY_MILLIS = 1000;

    /** Nodes of one owner under one parent that may exist although nobody holds or waits on them. */
    static final class Entry {
        final String owner;
        final String parent;
        final String marker;
        final ReentrantLock lock = new ReentrantLock();
        boolean settled; // guarded by lock

        Entry(String owner, String parent, String marker) {
            this.owner = owner;
            this.parent = parent;
            this.marker = marker;
        }
    }

    private final CuratorFramework curator;
    private final String description;
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final ScheduledExecutorService executor;
    private final AtomicBoolean scheduled = new AtomicBoolean();

    OrphanCleaner(CuratorFramework curator, String description) {
        this.curator = curator;
        this.description = description;
        this.executor = Executors.newSingleThreadScheduledExecutor(DaemonThreads.single("latchkey-zk-orphan-cleaner"));
    }

    /** Records that nodes of {@code owner} may be left under {@code parent}, and tries to remove them soon. */
    void add(String owner, String parent, String marker) {
        entries.put(owner, new Entry(owner, parent, marker));
        schedule(0);
    }

    /**
     * Called by an acquisition attempt before it touches the store: from now on that attempt handles any
     * leftover of {@code owner} itself. Waits while the cleaner is busy with this owner.
     */
    void claim(String owner) {
        Entry e = entries.remove(owner);
        if (e != null) {
            e.lock.lock();
            try {
                e.settled = true;
            } finally {
                e.lock.unlock();
            }
        }
    }

    /** Whether nothing is pending (for tests and logs). */
    boolean isEmpty() {
        return entries.isEmpty();
    }

    /** A connection came back: pending cleanups may now succeed. */
    void connectionRestored() {
        if (!entries.isEmpty()) {
            schedule(0);
        }
    }

    private void schedule(long delayMillis) {
        if (scheduled.compareAndSet(false, true)) {
            try {
                executor.schedule(this::runAll, delayMillis, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                scheduled.set(false);
            }
        }
    }

    private void runAll() {
        scheduled.set(false);
        for (Entry e : List.copyOf(entries.values())) {
            if (!cleanup(e)) {
                schedule(RETRY_MILLIS);
                return;
            }
        }
    }

    /** False if the store could not be reached (try again later). */
    private boolean cleanup(Entry e) {
        e.lock.lock();
        try {
            if (e.settled) {
                return true;
            }
            deleteNodesOf(curator, e.parent, e.marker);
            e.settled = true;
            entries.remove(e.owner, e);
            return true;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return true;
        } catch (Exception ex) {
            log.debug(
                    "Could not yet remove the leftover node(s) of {} under {} on {}; will retry",
                    e.owner,
                    e.parent,
                    description,
                    ex);
            return false;
        } finally {
            e.lock.unlock();
        }
    }

    /** Deletes every contender node of one owner under a parent; a missing parent or node is fine. */
    static void deleteNodesOf(CuratorFramework curator, String parent, String marker) throws Exception {
        List<String> children;
        try {
            children = curator.getChildren().forPath(parent);
        } catch (KeeperException.NoNodeException gone) {
            return;
        }
        for (String child : children) {
            if (LockPaths.hasMarker(child, marker)) {
                try {
                    curator.delete().forPath(parent + "/" + child);
                } catch (KeeperException.NoNodeException gone) {
                    // already removed: fine
                }
            }
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        if (!entries.isEmpty()) {
            log.warn(
                    "{} contender node(s) on {} could not be removed before closing; they end with the session",
                    entries.size(),
                    description);
        }
    }
}
