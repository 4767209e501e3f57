package io.latchkey.zookeeper;

import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.SemaphoreCounts;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * One acquisition's view of the store: its parent, its owner marker, and the node it created (the acquire
 * protocol of ZooKeeperLockBackend: create, list, adopt, give up).
 *
 * Idempotency. The owner id is in the node name. If a create's reply is lost (and Curator's retry makes a
 * second node, or the core retries the same owner later), the next listing shows several nodes with the
 * owner's marker: the earliest is adopted, the others deleted. A failure that may leave a node behind
 * (create without reply, waiter that gave up while disconnected) hands the owner to the OrphanCleaner, which
 * deletes its nodes once the store answers.
 *
 * Concurrency. An attempt belongs to the one thread that acquires; it is never shared.
 */
final class AcquireAttempt {
    private static final Logger log = LoggerFactory.getLogger(AcquireAttempt.class);

    private final CuratorFramework curator;
    private final ZooKeeperConnection connection;
    private final OrphanCleaner orphans;
    private final HeldGrants held;
    private final String description;
    private final AcquireRequest request;
    private final String parent;
    private final String marker;
    private ContenderNode created;

    AcquireAttempt(
            ZooKeeperConnection connection,
            OrphanCleaner orphans,
            HeldGrants held,
            String description,
            LockPaths paths,
            AcquireRequest request) {
        this.curator = connection.curator();
        this.connection = connection;
        this.orphans = orphans;
        this.held = held;
        this.description = description;
        this.request = request;
        this.parent = paths.parent(request.name());
        this.marker = LockPaths.marker(request.kind(), request.owner());
        orphans.claim(request.owner()); // a leftover of an earlier attempt of this owner is ours to handle
    }

    ContenderNode create() throws Exception {
        Stat stat = new Stat();
        created = null;
        String path = curator.create()
                .storingStatIn(stat)
                .creatingParentContainersIfNeeded()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(parent + "/" + marker, request.owner().getBytes(StandardCharsets.UTF_8));
        if (stat.getCzxid() == 0) {
            stat = curator.checkExists().forPath(path); // defensive: a create that did not fill the Stat
            if (stat == null) {
                throw new KeeperException.NoNodeException(path);
            }
        }
        created = new ContenderNode(path, parent, marker, stat.getCzxid(), stat.getEphemeralOwner());
        return created;
    }

    /** Lists the queue; adopts the earliest node of this owner and deletes its later duplicates. */
    Queue list(ContenderNode mine) throws Exception {
        List<String> queue = LockPaths.contenders(curator.getChildren().forPath(parent));
        int first = -1;
        List<String> duplicates = null;
        for (int i = 0; i < queue.size(); i++) {
            if (LockPaths.hasMarker(queue.get(i), marker)) {
                if (first < 0) {
                    first = i;
                } else {
                    (duplicates == null ? duplicates = new ArrayList<>() : duplicates).add(queue.get(i));
                }
            }
        }
        if (first < 0) {
            return new Queue(queue, -1, null, request.kind());
        }
        ContenderNode adopted = mine;
        String firstNode = queue.get(first);
        if (mine == null || !firstNode.equals(mine.nodeName())) {
            Stat stat = curator.checkExists().forPath(parent + "/" + firstNode);
            if (stat == null) {
                return list(null); // vanished meanwhile: look again
            }
            adopted = new ContenderNode(
                    parent + "/" + firstNode, parent, marker, stat.getCzxid(), stat.getEphemeralOwner());
            log.debug(
                    "Lock '{}' on {}: adopted node {} of owner {} (an earlier attempt's reply was lost)",
                    request.name(),
                    description,
                    firstNode,
                    request.owner());
        }
        if (duplicates != null) {
            for (String d : duplicates) {
                try {
                    curator.delete().forPath(parent + "/" + d);
                } catch (KeeperException.NoNodeException gone) {
                    // fine
                }
            }
            queue.removeAll(duplicates);
            first = queue.indexOf(firstNode);
        }
        created = adopted;
        return new Queue(queue, first, adopted, request.kind());
    }

    Grant grant(ContenderNode mine, long startNanos) {
        return held.grant(request, mine, startNanos);
    }

    /** A semaphore queue made with another permit count: leaves it untouched and says why. */
    void refuseOtherCount(Queue q) throws Exception {
        int stored = q.conflictingLimit();
        if (stored != 0) {
            giveUp();
            throw SemaphoreCounts.conflict(
                    request.name(), description, stored, request.kind().limit());
        }
    }

    /** Leaves the queue (busy, timed out): deletes every node of this owner. */
    void giveUp() throws Exception {
        if (created != null) {
            try {
                curator.delete().forPath(created.path());
            } catch (KeeperException.NoNodeException gone) {
                // fine
            }
        }
    }

    /** Leaves the queue after an interrupt: clears the interrupt so the delete can run; the caller reports it. */
    void giveUpAfterInterrupt() {
        Thread.interrupted();
        giveUpQuietly();
    }

    /** After a failure whose outcome is unknown: try to delete this owner's nodes, else leave it to the cleaner. */
    void giveUpQuietly() {
        if (!connection.isConnected()) {
            orphans.add(request.owner(), parent, marker);
            return;
        }
        try {
            OrphanCleaner.deleteNodesOf(curator, parent, marker);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            orphans.add(request.owner(), parent, marker);
        } catch (Exception e) {
            orphans.add(request.owner(), parent, marker);
        }
    }

    /**
     * A snapshot of one queue, from this attempt's point of view, and who it admits. Arrival order decides:
     * exclusive and write contenders hold from the head; a reader holds when no writer is ahead of it (so a waiting
     * writer keeps later readers out: writer preference); a semaphore contender holds when the permits asked by
     * every contender up to and including it fit the count (first come, first served: a large request is not
     * overtaken by small ones).
     */
    static final class Queue {
        final List<String> nodes;
        final int index;
        final ContenderNode mine;
        private final GrantKind kind;

        Queue(List<String> nodes, int index, ContenderNode mine, GrantKind kind) {
            this.nodes = nodes;
            this.index = index;
            this.mine = mine;
            this.kind = kind;
        }

        boolean isHolder() {
            return switch (kind.type()) {
                case EXCLUSIVE, WRITE -> index == 0;
                case READ -> writerAhead() < 0;
                case PERMITS -> permitsThrough(index) <= kind.limit();
            };
        }

        /**
         * The node whose deletion may admit this contender, watched so that a release wakes only the waiters it
         * can admit; null for a semaphore, which any earlier contender's departure may admit (watch the queue).
         */
        String blocker() {
            return switch (kind.type()) {
                case EXCLUSIVE, WRITE -> path(index - 1);
                case READ -> path(writerAhead());
                case PERMITS -> null;
            };
        }

        /** Another permit count found among the semaphore's contenders, or 0 if they all agree with this one. */
        int conflictingLimit() {
            if (kind.type() != GrantKind.Type.PERMITS) {
                return 0;
            }
            for (String n : nodes) {
                if (LockPaths.limitOf(n) != kind.limit()) {
                    return LockPaths.limitOf(n);
                }
            }
            return 0;
        }

        private int writerAhead() {
            for (int i = index - 1; i >= 0; i--) {
                if (LockPaths.isWriter(nodes.get(i))) {
                    return i;
                }
            }
            return -1;
        }

        private long permitsThrough(int last) {
            long sum = 0;
            for (int i = 0; i <= last; i++) {
                sum += LockPaths.permitsOf(nodes.get(i));
            }
            return sum;
        }

        private String path(int i) {
            return mine.parent() + "/" + nodes.get(i);
        }

        Busy busy() {
            String holder = nodes.isEmpty() || kind.shared() ? null : LockPaths.ownerOf(nodes.get(0));
            return new Busy(holder, -1, null);
        }
    }
}
