package io.latchkey.zookeeper;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantLossSink;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * A fair ZooKeeper lock on the Curator framework (DESIGN.md section 6), without Curator's lock recipe.
 *
 * Protocol. Each acquisition creates one EPHEMERAL_SEQUENTIAL node "lk-<owner>-<seq>" under the lock's
 * container parent (created on first use; ZooKeeper deletes empty containers). The lowest sequence holds
 * the lock; a waiter watches only its predecessor, so one release wakes one waiter and the queue is FIFO.
 * The fencing token is the node's czxid, read from the create's Stat. Uncontended: create + getChildren
 * to acquire, delete to release.
 *
 * Idempotency. The owner id is in the node name. If a create's reply is lost (and Curator's retry makes a
 * second node, or the core retries the same owner later), the next listing shows several nodes with the
 * owner's marker: the earliest is adopted, the others deleted. A failure that may leave a node behind
 * (create without reply, waiter that gave up while disconnected, release that failed) hands the owner to
 * the OrphanCleaner, which deletes its nodes once the store answers.
 *
 * Sessions. A grant is bound to the session that owns its node. Its validity is counted from before the
 * request that proved it (monotonic clock): min(lease, session timeout - 1% - 2 ms), because ZooKeeper
 * cannot expire the session earlier than a session timeout after it last heard from the client. renew()
 * is one exists() that proves both the node and the session again, and fails fast while the connection
 * is SUSPENDED, so a partitioned holder stops being valid at its validUntil. Session expiry (Curator's
 * LOST) is reported as SESSION_LOST for every grant of that session; after reconnection with a new session
 * the client acquires again as usual.
 *
 * Concurrency. The backend holds no lock around I/O. Shared state: `held` (node path -> grant, for
 * session-loss reports) and `waiters` (latches to wake on session changes), both concurrent collections.
 * A waiter parks on its own CountDownLatch, never on a shared monitor, so waiters for different names in
 * one JVM never serialise behind each other.
 */
public final class ZooKeeperLockBackend implements LockBackend {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockBackend.class);
    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(Capability.FAIR, Capability.NATIVE_WAIT,
            Capability.SESSION_BOUND, Capability.SURVIVES_SERVER_RESTART, Capability.LISTING));
    private static final GrantLossSink NO_SINK = new GrantLossSink() {
        @Override
        public void grantLost(String name, String owner, LockLoss.Reason reason, String detail, Throwable cause) {
        }

        @Override
        public void allLost(LockLoss.Reason reason, String detail, Throwable cause) {
        }
    };

    private final CuratorFramework curator;
    private final boolean ownsCurator;
    private final String description;
    private final LockPaths paths;
    private final SessionState session;
    private final OrphanCleaner orphans;
    private final Listing listing;
    private final Map<String, Grant> held = new ConcurrentHashMap<>();
    private final Set<CountDownLatch> waiters = ConcurrentHashMap.newKeySet();
    private volatile GrantLossSink sink = NO_SINK;
    private volatile boolean closed;
    private volatile boolean leaseWarned;

    ZooKeeperLockBackend(CuratorFramework curator, boolean ownsCurator, String description, String basePath,
                         long fallbackSessionTimeoutNanos) {
        this.curator = curator;
        this.ownsCurator = ownsCurator;
        this.description = description;
        this.paths = new LockPaths(basePath);
        this.orphans = new OrphanCleaner(curator, description);
        this.session = new SessionState(curator, fallbackSessionTimeoutNanos, new SessionEvents());
        // one reply may take as long as Curator's retries over a suspended connection: bound it by the session
        this.listing = new Listing(curator, paths, () -> Math.max(1000, TimeUnit.NANOSECONDS.toMillis(this.session.timeoutNanos())));
        curator.getConnectionStateListenable().addListener(session);
    }

    /**
     * A backend on a {@link CuratorFramework} the application already has (started, or started later by the
     * application). The backend never closes it.
     */
    public static ZooKeeperLockBackendBuilder builder(CuratorFramework curator) {
        return new ZooKeeperLockBackendBuilder(curator);
    }

    // ------------------------------------------------------------------ SPI

    @Override
    public String description() {
        return description;
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public void bind(GrantLossSink sink) {
        this.sink = sink == null ? NO_SINK : sink;
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        requireConnected(request.name(), "cannot acquire");
        Attempt a = new Attempt(request);
        try {
            long start = System.nanoTime();
            ContenderNode mine = a.create();
            Queue q = a.list(mine);
            if (q.mine == null) {
                // our node vanished between create and list (session lost): report as unavailable, the core retries
                throw new KeeperException.SessionExpiredException();
            }
            if (q.isHolder()) {
                return a.grant(q.mine, start);
            }
            a.giveUp();
            return q.busy();
        } catch (InterruptedException e) {
            a.giveUpAfterInterrupt();
            Thread.currentThread().interrupt();
            throw unavailable(request.name(), "interrupted while acquiring", e);
        } catch (Exception e) {
            a.giveUpQuietly();
            throw unavailable(request.name(), "could not acquire", e);
        }
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        long deadline = saturatedAdd(System.nanoTime(), maxWait.toNanos());
        requireConnected(request.name(), "cannot acquire");
        Attempt a = new Attempt(request);
        try {
            long start = System.nanoTime();
            ContenderNode mine = a.create();
            for (;;) {
                Queue q = a.list(mine);
                if (q.mine == null) {
                    // our node is gone (session expired, or removed by an operator): queue again at the end
                    start = System.nanoTime();
                    mine = a.create();
                    continue;
                }
                mine = q.mine;
                if (q.isHolder()) {
                    return a.grant(mine, start);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    a.giveUp();
                    return q.busy();
                }
                CountDownLatch wake = new CountDownLatch(1);
                waiters.add(wake);
                try {
                    if (watch(q.predecessor(), wake)) {
                        wake.await(left, TimeUnit.NANOSECONDS);
                    }
                } finally {
                    waiters.remove(wake);
                }
                start = System.nanoTime(); // the next list proves the grant; count validity from before it
            }
        } catch (InterruptedException e) {
            a.giveUpAfterInterrupt();
            throw e;
        } catch (Exception e) {
            a.giveUpQuietly();
            throw unavailable(request.name(), "could not acquire", e);
        }
    }

    /** Sets a watch on the predecessor; false if it is already gone (then there is nothing to wait for). */
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

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        // acquire() waits in the store's queue; the core calls this only between failed attempts
        CountDownLatch wake = new CountDownLatch(1);
        waiters.add(wake);
        try {
            List<String> queue;
            try {
                queue = LockPaths.contenders(curator.getChildren().usingWatcher((Watcher) event -> wake.countDown())
                        .forPath(paths.parent(name)));
            } catch (KeeperException.NoNodeException free) {
                return true;
            }
            return queue.isEmpty() || wake.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw unavailable(name, "could not watch", e);
        } finally {
            waiters.remove(wake);
        }
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        ContenderNode node = (ContenderNode) grant.state();
        if (!session.isConnected()) {
            throw unavailable(grant.name(), "cannot renew while the connection is suspended (session 0x"
                    + Long.toHexString(node.sessionId()) + " may expire)", null);
        }
        long start = System.nanoTime();
        Stat stat;
        try {
            stat = curator.checkExists().forPath(node.path());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(grant.name(), "interrupted while renewing", e);
        } catch (Exception e) {
            throw unavailable(grant.name(), "could not renew", e);
        }
        if (stat == null || stat.getCzxid() != node.czxid()) {
            held.remove(node.path());
            boolean sessionEnded = node.sessionId() != session.sessionId() && node.sessionId() != 0;
            return sessionEnded ? RenewResult.notHeld(LockLoss.Reason.SESSION_LOST) : RenewResult.notHeld();
        }
        return RenewResult.renewed(start + validityNanos(lease));
    }

    @Override
    public boolean release(Grant grant) {
        ContenderNode node = (ContenderNode) grant.state();
        held.remove(node.path());
        if (!session.isConnected()) {
            orphans.add(grant.owner(), node.parent(), node.marker());
            throw unavailable(grant.name(), "cannot release while the connection is suspended; the node is removed "
                    + "in the background once the store answers, or ends with the session", null);
        }
        try {
            curator.delete().forPath(node.path());
            return true;
        } catch (KeeperException.NoNodeException gone) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            orphans.add(grant.owner(), node.parent(), node.marker());
            throw unavailable(grant.name(), "interrupted while releasing; the node is removed in the background", e);
        } catch (Exception e) {
            orphans.add(grant.owner(), node.parent(), node.marker());
            throw unavailable(grant.name(), "could not release; the node is removed in the background once the "
                    + "store answers, or ends with the session", e);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        try {
            return holderOf(name, paths.parent(name));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(name, "interrupted while inspecting", e);
        } catch (Exception e) {
            throw unavailable(name, "could not inspect", e);
        }
    }

    @Override
    public List<LockInfo> list(String prefix) {
        try {
            return listing.list(prefix);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(prefix, "interrupted while listing", e);
        } catch (Exception e) {
            throw unavailable(prefix, "could not list locks with prefix", e);
        }
    }

    @Override
    public boolean forceRelease(String name) {
        String parent = paths.parent(name);
        try {
            for (;;) {
                List<String> queue;
                try {
                    queue = LockPaths.contenders(curator.getChildren().forPath(parent));
                } catch (KeeperException.NoNodeException none) {
                    return false;
                }
                if (queue.isEmpty()) {
                    return false;
                }
                try {
                    curator.delete().forPath(parent + "/" + queue.get(0));
                    log.info("Force-released lock '{}' on {} (node {})", name, description, queue.get(0));
                    return true;
                } catch (KeeperException.NoNodeException released) {
                    // released meanwhile: the next contender may hold it now; look again
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(name, "interrupted while force-releasing", e);
        } catch (Exception e) {
            throw unavailable(name, "could not force-release", e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        curator.getConnectionStateListenable().removeListener(session);
        orphans.close();
        wakeAllWaiters();
        if (ownsCurator) {
            curator.close(); // ends the session: the server removes every node this client still had
        }
    }

    @Override
    public String toString() {
        return "ZooKeeperLockBackend[" + description + "]";
    }

    // ------------------------------------------------------------------ accessors for tests and tools

    /** The Curator client this backend uses (for fault injection in tests, and for operators' tools). */
    public CuratorFramework curator() {
        return curator;
    }

    /** The ZooKeeper path of the container node that queues the contenders for {@code name}. */
    public String pathOf(String name) {
        return paths.parent(name);
    }

    /** Whether no leftover node is waiting for background removal. */
    boolean noOrphansPending() {
        return orphans.isEmpty();
    }

    // ------------------------------------------------------------------ internals

    private Optional<LockInfo> holderOf(String name, String parent) throws Exception {
        for (;;) {
            List<String> queue;
            try {
                queue = LockPaths.contenders(curator.getChildren().forPath(parent));
            } catch (KeeperException.NoNodeException none) {
                return Optional.empty();
            }
            if (queue.isEmpty()) {
                return Optional.empty();
            }
            String node = queue.get(0);
            Stat stat = curator.checkExists().forPath(parent + "/" + node);
            if (stat != null) {
                return Optional.of(new LockInfo(name, LockPaths.ownerOf(node), stat.getCzxid(),
                        Optional.of(Instant.ofEpochMilli(stat.getCtime())), Optional.empty()));
            }
            // released between the two reads: look again
        }
    }

    /** How long a grant proven at some instant stays valid: the lease, but never beyond what the session vouches for. */
    private long validityNanos(Duration lease) {
        long sessionNanos = session.timeoutNanos();
        long sessionBound = sessionNanos - sessionNanos / 100 - TimeUnit.MILLISECONDS.toNanos(2);
        return Math.min(lease.toNanos(), Math.max(0, sessionBound));
    }

    /**
     * Fails fast while the connection is suspended, rather than blocking in Curator for the connection timeout
     * times its retries: the core's loop retries within the caller's wait.
     */
    private void requireConnected(String name, String what) {
        if (!session.isConnected()) {
            throw new BackendUnavailableException(what + " lock '" + name + "' on " + description
                    + ": the connection to ZooKeeper is suspended (session 0x" + Long.toHexString(session.sessionId())
                    + " may still be alive; retry once it reconnects)", name, description, null);
        }
    }

    /** Warns once when leases are longer than the session can vouch for (see the module README). */
    private void checkLease(Duration lease) {
        if (lease.toNanos() > session.timeoutNanos() && !leaseWarned) {
            leaseWarned = true;
            log.warn("Lease {} on {} is longer than the ZooKeeper session timeout ({} ms) allows: grants are valid for at "
                    + "most the session timeout, so keep the lease (and its renew interval, lease/3 by default) within "
                    + "it, or raise sessionTimeout", lease, description, TimeUnit.NANOSECONDS.toMillis(session.timeoutNanos()));
        }
    }

    private void wakeAllWaiters() {
        for (CountDownLatch w : waiters) {
            w.countDown();
        }
    }

    BackendUnavailableException unavailable(String name, String what, Throwable cause) {
        String reason = cause == null ? "" : ": " + describe(cause);
        return new BackendUnavailableException(what + " lock '" + name + "' on " + description + reason, name, description, cause);
    }

    private static String describe(Throwable e) {
        if (e instanceof Listing.ListingTooLargeException) {
            return e.getMessage();
        }
        if (e instanceof KeeperException ke) {
            return "ZooKeeper " + ke.code() + (ke.getPath() == null ? "" : " at " + ke.getPath());
        }
        return e.toString();
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** One acquisition's view of the store: its parent, its owner marker, and the node it created. */
    private final class Attempt {
        final AcquireRequest request;
        final String parent;
        final String marker;
        ContenderNode created;

        Attempt(AcquireRequest request) {
            this.request = request;
            this.parent = paths.parent(request.name());
            this.marker = LockPaths.marker(request.owner());
            orphans.claim(request.owner()); // a leftover of an earlier attempt of this owner is ours to handle
        }

        ContenderNode create() throws Exception {
            Stat stat = new Stat();
            created = null;
            String path = curator.create().storingStatIn(stat).creatingParentContainersIfNeeded()
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
                return new Queue(queue, -1, null);
            }
            ContenderNode adopted = mine;
            String firstNode = queue.get(first);
            if (mine == null || !firstNode.equals(mine.nodeName())) {
                Stat stat = curator.checkExists().forPath(parent + "/" + firstNode);
                if (stat == null) {
                    return list(null); // vanished meanwhile: look again
                }
                adopted = new ContenderNode(parent + "/" + firstNode, parent, marker, stat.getCzxid(), stat.getEphemeralOwner());
                log.debug("Lock '{}' on {}: adopted node {} of owner {} (an earlier attempt's reply was lost)",
                        request.name(), description, firstNode, request.owner());
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
            return new Queue(queue, first, adopted);
        }

        Grant grant(ContenderNode mine, long startNanos) {
            checkLease(request.lease());
            Grant g = new Grant(request.name(), request.owner(), mine.czxid(), startNanos + validityNanos(request.lease()), mine);
            held.put(mine.path(), g);
            return g;
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
            if (!session.isConnected()) {
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
    }

    /** A snapshot of one lock's queue, from this attempt's point of view. */
    private final class Queue {
        final List<String> nodes;
        final int index;
        final ContenderNode mine;

        Queue(List<String> nodes, int index, ContenderNode mine) {
            this.nodes = nodes;
            this.index = index;
            this.mine = mine;
        }

        boolean isHolder() {
            return index == 0;
        }

        String predecessor() {
            return mine.parent() + "/" + nodes.get(index - 1);
        }

        Busy busy() {
            String holder = nodes.isEmpty() ? null : LockPaths.ownerOf(nodes.get(0));
            return new Busy(holder, -1, null);
        }
    }

    /** Curator's connection events, applied to grants and waiters. */
    private final class SessionEvents implements SessionState.Events {
        @Override
        public void sessionLost(long lostSessionId) {
            for (Grant g : held.values()) {
                ContenderNode node = (ContenderNode) g.state();
                if (node.sessionId() == lostSessionId && held.remove(node.path(), g)) {
                    sink.grantLost(g.name(), g.owner(), LockLoss.Reason.SESSION_LOST,
                            "ZooKeeper session 0x" + Long.toHexString(lostSessionId) + " expired; its lock nodes are gone", null);
                }
            }
            wakeAllWaiters();
        }

        @Override
        public void connected(long sessionId) {
            for (Grant g : held.values()) {
                ContenderNode node = (ContenderNode) g.state();
                if (node.sessionId() != sessionId && held.remove(node.path(), g)) {
                    sink.grantLost(g.name(), g.owner(), LockLoss.Reason.SESSION_LOST,
                            "reconnected with a new ZooKeeper session 0x" + Long.toHexString(sessionId)
                                    + "; session 0x" + Long.toHexString(node.sessionId()) + " of this lock ended", null);
                }
            }
            orphans.connectionRestored();
            wakeAllWaiters();
        }
    }
}
