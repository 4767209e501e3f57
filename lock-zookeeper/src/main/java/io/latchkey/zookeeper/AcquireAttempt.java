package io.latchkey.zookeeper;

import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.SemaphoreCounts;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * One acquisition's view of the store: its parent, its owner marker, and the node it created (the acquire
 * protocol of ZooKeeperLockBackend: join (create + list in one round trip), list, adopt, give up).
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

    /**
     * Joins the queue: creates this attempt's node and lists the queue in one round trip. Both requests leave
     * before either reply, and ZooKeeper answers one session's requests in the order they were sent, so the
     * listing is taken after the create. If the listing does not show the node (the parent had to be made first,
     * or the requests were queued apart while the connection was down), the queue is listed again on its own.
     */
    Queue join() throws Exception {
        created = null;
        CompletableFuture<CuratorEvent> made = new CompletableFuture<>();
        CompletableFuture<CuratorEvent> listed = new CompletableFuture<>();
        curator.create()
                .creatingParentContainersIfNeeded()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .inBackground((client, event) -> made.complete(event))
                .forPath(parent + "/" + marker, request.owner().getBytes(StandardCharsets.UTF_8));
        curator.getChildren()
                .inBackground((client, event) -> listed.complete(event))
                .forPath(parent);
        CuratorEvent reply = replyTo(made);
        KeeperException.Code code = KeeperException.Code.get(reply.getResultCode());
        if (code != KeeperException.Code.OK) {
            throw KeeperException.create(code, parent + "/" + marker);
        }
        Stat stat = reply.getStat();
        if (stat == null || stat.getCzxid() == 0) {
            stat = curator.checkExists().forPath(reply.getName()); // defensive: a create that did not fill the Stat
            if (stat == null) {
                throw new KeeperException.NoNodeException(reply.getName());
            }
        }
        created = new ContenderNode(reply.getName(), parent, marker, stat.getCzxid(), stat.getEphemeralOwner());
        if (Thread.interrupted()) {
            throw new InterruptedException(); // only now: the node is known, so giving up deletes it
        }
        CuratorEvent listing = replyTo(listed);
        if (listing.getResultCode() == KeeperException.Code.OK.intValue()
                && listing.getChildren().contains(created.nodeName())) {
            return judge(created, listing.getChildren());
        }
        return list(created);
    }

    /**
     * Waits for a background reply. Curator answers every background request, with an error code once its retry
     * policy gives up; the bound only keeps a client with an unusual policy from hanging here forever. Waiting for
     * the create's reply ignores interrupts (it is normally a few milliseconds away), so that the node it reports
     * can be deleted by giveUp; the interrupt is kept for the caller.
     */
    private CuratorEvent replyTo(CompletableFuture<CuratorEvent> reply) throws Exception {
        long bound = 2 * connection.timeoutNanos() + TimeUnit.SECONDS.toNanos(10);
        boolean interrupted = false;
        try {
            for (; ; ) {
                try {
                    return reply.get(bound, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                } catch (TimeoutException e) {
                    throw new KeeperException.OperationTimeoutException();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Lists the queue; adopts the earliest node of this owner and deletes its later duplicates. */
    Queue list(ContenderNode mine) throws Exception {
        return judge(mine, curator.getChildren().forPath(parent));
    }

    private Queue judge(ContenderNode mine, List<String> children) throws Exception {
        List<String> queue = LockPaths.contenders(children);
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
