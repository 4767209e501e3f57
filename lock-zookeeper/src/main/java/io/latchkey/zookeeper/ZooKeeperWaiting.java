package io.latchkey.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;

/*
 * ZooKeeper's native wake-ups: a waiter in the queue watches only the node that keeps it out (its predecessor, or
 * a reader's nearest writer ahead), so one release wakes only waiters it can admit; a semaphore contender, which
 * any earlier departure may admit, watches the queue's children; between the core's attempts, awaitChange
 * watches the lock's children.
 *
 * Concurrency. A waiter parks on its own CountDownLatch, never on a shared monitor, so waiters for different
 * names in one JVM never serialise behind each other. Every latch is registered in `waiters` (a concurrent
 * set) while it is parked, so that a session change or close() can wake them all: after a session loss or a
 * reconnection the queue must be read again, and no watch of the old session will ever fire.
 */
final class ZooKeeperWaiting {
    private final CuratorFramework curator;
    private final Set<CountDownLatch> waiters = ConcurrentHashMap.newKeySet();

    ZooKeeperWaiting(CuratorFramework curator) {
        this.curator = curator;
    }

    /**
     * Waits until the predecessor node is gone, a session change, or {@code nanos} have passed; returns at once
     * if the predecessor is already gone (then there is nothing to wait for).
     */
    void awaitPredecessor(String predecessorPath, long nanos) throws Exception {
        CountDownLatch wake = new CountDownLatch(1);
        waiters.add(wake);
        try {
            if (watch(predecessorPath, wake)) {
                wake.await(nanos, TimeUnit.NANOSECONDS);
            }
        } finally {
            waiters.remove(wake);
        }
    }

    /** Sets a watch on the predecessor; false if it is already gone. */
    private boolean watch(String predecessorPath, CountDownLatch wake) throws Exception {
        Watcher watcher = event -> wake.countDown();
        try {
            // getData, not exists: exists() on a vanished node would leave a watch for its creation behind
            curator.getData().usingWatcher(watcher).forPath(predecessorPath);
            return true;
        } catch (KeeperException.NoNodeException gone) {
            return false;
        }
    }

    /**
     * Waits for a change of the queue under {@code parent}: true at once if nobody queues there, else whether
     * a change (or a session change) came within the timeout.
     */
    boolean awaitChange(String parent, Duration timeout) throws Exception {
        return watchQueue(parent, queue -> !queue.isEmpty(), timeout.toNanos());
    }

    /**
     * Waits until the queue under {@code parent} differs from {@code seen} (the contenders the caller last read and
     * judged), a session change, or {@code nanos} have passed. The watch is set by a fresh read, which is compared
     * with {@code seen}: a change between the caller's read and the watch returns at once instead of being missed.
     */
    void awaitQueueChange(String parent, List<String> seen, long nanos) throws Exception {
        watchQueue(parent, seen::equals, nanos);
    }

    /**
     * Reads the queue under {@code parent} with a children watch and sleeps on it while {@code sleepIf} holds for
     * what was read: true if it did not hold (or the parent is gone), else whether a change came within {@code nanos}.
     */
    private boolean watchQueue(String parent, Predicate<List<String>> sleepIf, long nanos) throws Exception {
        CountDownLatch wake = new CountDownLatch(1);
        waiters.add(wake);
        try {
            List<String> queue;
            try {
                queue = LockPaths.contenders(curator.getChildren()
                        .usingWatcher((Watcher) event -> wake.countDown())
                        .forPath(parent));
            } catch (KeeperException.NoNodeException gone) {
                return true;
            }
            return !sleepIf.test(queue) || wake.await(nanos, TimeUnit.NANOSECONDS);
        } finally {
            waiters.remove(wake);
        }
    }

    /** Wakes every parked waiter (session lost, reconnected, backend closed): each reads its queue again. */
    void wakeAll() {
        for (CountDownLatch w : waiters) {
            w.countDown();
        }
    }
}
