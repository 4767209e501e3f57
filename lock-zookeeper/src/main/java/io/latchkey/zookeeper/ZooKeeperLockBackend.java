package io.latchkey.zookeeper;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Deadlines;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantLossSink;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.apache.zookeeper.data.Stat;

/*
 * A fair ZooKeeper lock on the Curator framework (docs/design.md section 6), without Curator's lock recipe; its
 * read-write locks and semaphores are the same queue with other admission rules (AcquireAttempt.Queue).
 *
 * Protocol. Each acquisition creates one EPHEMERAL_SEQUENTIAL node "lk-<owner>-<seq>" under the lock's
 * container parent (created on first use; ZooKeeper deletes empty containers). The lowest sequence holds
 * the lock; a waiter watches only its predecessor (ZooKeeperWaiting), so one release wakes one waiter and the
 * queue is FIFO. The fencing token is the node's czxid, read from the create's Stat. Uncontended: create +
 * getChildren to acquire, sent back to back so they take one round trip (AcquireAttempt.join); delete to
 * release. AcquireAttempt holds one acquisition's steps and its idempotency rules; a release that failed hands
 * the owner to the OrphanCleaner.
 *
 * Sessions. A grant is bound to the session that owns its node; HeldGrants counts its validity and reports
 * session losses. renew() is one exists() that proves both the node and the session again, and fails fast
 * while the connection is SUSPENDED, so a partitioned holder stops being valid at its validUntil. After
 * reconnection with a new session the client acquires again as usual.
 *
 * Concurrency. The backend holds no lock around I/O. Its shared state lives in HeldGrants and ZooKeeperWaiting
 * (concurrent collections) and ZooKeeperConnection (volatile session fields); this class only adds `closed`.
 *
 * Layout: ZooKeeperConnection (client lifecycle, session state), AcquireAttempt (acquire protocol),
 * ZooKeeperWaiting (watches), HeldGrants (validity, session losses), Listing, OrphanCleaner, LockPaths.
 */
/**
 * Locks in ZooKeeper ({@code zookeeper://h1:2181,h2:2181/chroot}): a fair queue of ephemeral sequential nodes per
 * name, fencing tokens from creation zxids, grants bound to the Curator session. Built from a URI by
 * {@code Latchkey.connect}, or on the application's {@link CuratorFramework} with {@link #builder}.
 */
public final class ZooKeeperLockBackend implements LockBackend {
    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(
            Capability.FAIR,
            Capability.NATIVE_WAIT,
            Capability.SESSION_BOUND,
            Capability.SURVIVES_SERVER_RESTART,
            Capability.LISTING,
            Capability.READ_WRITE,
            Capability.SEMAPHORE));

    private final CuratorFramework curator;
    private final ZooKeeperConnection connection;
    private final String description;
    private final LockPaths paths;
    private final LockPaths readWritePaths;
    private final LockPaths semaphorePaths;
    private final Queues queues;
    private final OrphanCleaner orphans;
    private final Listing listing;
    private final ZooKeeperWaiting waiting;
    private final HeldGrants held;
    private final ZooKeeperErrors errors;
    private final ZooKeeperRenewal renewal;
    private volatile boolean closed;

    ZooKeeperLockBackend(ZooKeeperConnection connection, String description, String basePath) {
        this.connection = connection;
        this.curator = connection.curator();
        this.description = description;
        this.errors = new ZooKeeperErrors(description);
        this.paths = new LockPaths(basePath);
        this.readWritePaths = new LockPaths(basePath + "/rw");
        this.semaphorePaths = new LockPaths(basePath + "/sem");
        this.queues = new Queues(curator, description);
        this.orphans = new OrphanCleaner(curator, description);
        this.waiting = new ZooKeeperWaiting(curator);
        this.held = new HeldGrants(connection, description, waiting::wakeAll, () -> {
            orphans.connectionRestored();
            waiting.wakeAll();
        });
        // one reply may take as long as Curator's retries over a suspended connection: bound it by the session
        this.listing = new Listing(
                curator, paths, () -> Math.max(1000, TimeUnit.NANOSECONDS.toMillis(connection.timeoutNanos())));
        this.renewal = new ZooKeeperRenewal(curator, connection, held, errors);
        connection.listen(held);
    }

    /**
     * A backend on a {@link CuratorFramework} the application already has (started, or started later by the
     * application). The backend never closes it.
     *
     * @param curator the application's Curator client
     * @return a new builder
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
        held.bind(sink);
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        requireConnected(request.name(), "cannot acquire");
        AcquireAttempt a = new AcquireAttempt(connection, orphans, held, description, pathsFor(request), request);
        try {
            long start = System.nanoTime();
            AcquireAttempt.Queue q = a.join();
            if (q.mine == null) {
                // our node vanished between create and list (session lost): report as unavailable, the core retries
                throw new KeeperException.SessionExpiredException();
            }
            a.refuseOtherCount(q);
            if (q.isHolder()) {
                return a.grant(q.mine, start);
            }
            a.giveUp();
            return q.busy();
        } catch (InterruptedException e) {
            a.giveUpAfterInterrupt();
            Thread.currentThread().interrupt();
            throw errors.unavailable(request.name(), "interrupted while acquiring", e);
        } catch (IllegalArgumentException otherCount) {
            throw otherCount;
        } catch (Exception e) {
            a.giveUpQuietly();
            throw errors.unavailable(request.name(), "could not acquire", e);
        }
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        long deadline = Deadlines.after(System.nanoTime(), maxWait);
        requireConnected(request.name(), "cannot acquire");
        AcquireAttempt a = new AcquireAttempt(connection, orphans, held, description, pathsFor(request), request);
        try {
            long start = System.nanoTime();
            AcquireAttempt.Queue q = a.join();
            for (; ; ) {
                if (q.mine == null) {
                    // our node is gone (session expired, or removed by an operator): queue again at the end
                    start = System.nanoTime();
                    q = a.join();
                    continue;
                }
                ContenderNode mine = q.mine;
                a.refuseOtherCount(q);
                if (q.isHolder()) {
                    return a.grant(mine, start);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    a.giveUp();
                    return q.busy();
                }
                String blocker = q.blocker();
                if (blocker != null) {
                    waiting.awaitPredecessor(blocker, left);
                } else {
                    waiting.awaitQueueChange(mine.parent(), q.nodes, left);
                }
                start = System.nanoTime(); // the next list proves the grant; count validity from before it
                q = a.list(mine);
            }
        } catch (InterruptedException e) {
            a.giveUpAfterInterrupt();
            throw e;
        } catch (IllegalArgumentException otherCount) {
            throw otherCount;
        } catch (Exception e) {
            a.giveUpQuietly();
            throw errors.unavailable(request.name(), "could not acquire", e);
        }
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        return awaitChangeUnder(name, paths.parent(name), timeout);
    }

    @Override
    public boolean awaitChange(AcquireRequest request, Duration timeout) throws InterruptedException {
        // acquire() waits in the store's queue; the core calls this only between failed attempts
        return awaitChangeUnder(request.name(), pathsFor(request).parent(request.name()), timeout);
    }

    private boolean awaitChangeUnder(String name, String parent, Duration timeout) throws InterruptedException {
        try {
            return waiting.awaitChange(parent, timeout);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw errors.unavailable(name, "could not watch", e);
        }
    }

    @Override
    public int availablePermits(String name, int limit) {
        return errors.call(
                name, "count the permits of", () -> queues.availablePermits(name, semaphorePaths.parent(name), limit));
    }

    @Override
    public Grant downgrade(Grant write, AcquireRequest read) {
        ContenderNode node = (ContenderNode) write.state();
        long start = System.nanoTime();
        ContenderNode mine = errors.call(write.name(), "downgrade", () -> queues.downgrade(node, read));
        held.forget(node);
        // the reader keeps the writer's place in the queue, so it keeps its token: writers queued behind it have
        // higher ones (their nodes are older than the reader's node, whose czxid only proves identity)
        return mine == null ? null : held.grant(read, mine, write.fencingToken(), start);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        return renewal.renew(grant, lease);
    }

    /** Exclusive grants renew in batches: one multi() of existence checks per batch (see ZooKeeperRenewal). */
    @Override
    public int renewalBatchSize() {
        return ZooKeeperRenewal.BATCH;
    }

    @Override
    public List<@Nullable RenewResult> renewAll(List<Grant> grants, List<Duration> leases) {
        return renewal.renewAll(grants, leases);
    }

    @Override
    public boolean release(Grant grant) {
        ContenderNode node = (ContenderNode) grant.state();
        held.forget(node);
        if (!connection.isConnected()) {
            orphans.add(grant.owner(), node.parent(), node.marker());
            throw errors.unavailable(
                    grant.name(),
                    "cannot release while the connection is suspended; the node is removed "
                            + "in the background once the store answers, or ends with the session",
                    null);
        }
        try {
            curator.delete().forPath(node.path());
            return true;
        } catch (KeeperException.NoNodeException gone) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            orphans.add(grant.owner(), node.parent(), node.marker());
            throw errors.unavailable(grant.name(), "interrupted while releasing; the node is removed in the background", e);
        } catch (Exception e) {
            orphans.add(grant.owner(), node.parent(), node.marker());
            throw errors.unavailable(
                    grant.name(),
                    "could not release; the node is removed in the background once the "
                            + "store answers, or ends with the session",
                    e);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return errors.call(name, "inspect", () -> queues.holderOf(name, paths.parent(name)));
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return errors.call(prefix, "list locks with prefix", () -> listing.list(prefix));
    }

    @Override
    public boolean forceRelease(String name) {
        return errors.call(name, "force-release", () -> queues.forceRelease(name, paths.parent(name)));
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        orphans.close();
        waiting.wakeAll();
        connection.close(); // if the backend built the client, this ends the session and its nodes
    }

    @Override
    public String toString() {
        return "ZooKeeperLockBackend[" + description + "]";
    }

    // ------------------------------------------------------------------ accessors for tests and tools

    /**
     * The Curator client this backend uses (for fault injection in tests, and for operators' tools).
     *
     * @return the Curator client
     */
    public CuratorFramework curator() {
        return curator;
    }

    /**
     * The ZooKeeper path of the container node that queues the contenders for {@code name}.
     *
     * @param name the lock's name
     * @return the container node's path
     */
    public String pathOf(String name) {
        return paths.parent(name);
    }

    /** Whether no leftover node is waiting for background removal. */
    boolean noOrphansPending() {
        return orphans.isEmpty();
    }

    // ------------------------------------------------------------------ internals

    /** Each primitive queues in its own subtree (see LockPaths). */
    private LockPaths pathsFor(AcquireRequest request) {
        return switch (request.kind().type()) {
            case EXCLUSIVE -> paths;
            case READ, WRITE -> readWritePaths;
            case PERMITS -> semaphorePaths;
        };
    }

    /**
     * Fails fast while the connection is suspended, rather than blocking in Curator for the connection timeout
     * times its retries: the core's loop retries within the caller's wait.
     */
    private void requireConnected(String name, String what) {
        if (!connection.isConnected()) {
            throw errors.suspended(name, what, connection.sessionId());
        }
    }
}
