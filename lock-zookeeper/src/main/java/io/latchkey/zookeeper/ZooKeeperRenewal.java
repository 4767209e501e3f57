package io.latchkey.zookeeper;

import io.latchkey.LockLoss;
import io.latchkey.spi.Grant;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/*
 * Renewal of grants held as ephemeral nodes. The session keeps every node alive; a renewal proves two things at an
 * instant: the session is still there (a reply on it), and the grant's node still exists (nobody force-released it).
 * The validity counted from before that request is min(lease, what the session vouches for), see HeldGrants.
 *
 * - One grant (renew, and every read-write or semaphore grant): exists() on its node, which also compares the
 *   node's czxid (the token's source).
 * - Many grants (renewAll, the core's batched background renewal of exclusive grants): one multi() of existence
 *   checks, one request however many grants, so a client holding thousands of locks costs ZooKeeper one request per
 *   batch and renewal interval. A multi is all or nothing: when a node is gone, the reply says which check failed
 *   (those before it passed, those after it were not decided); that grant is not held, and the checks after it are
 *   sent again. The check compares the path, not the czxid: sequential node names are never reused by ZooKeeper.
 *
 * Stateless apart from final fields; thread-safe.
 */
final class ZooKeeperRenewal {
    /** Grants per multi(): far below jute.maxbuffer (1 MB) for paths of a few hundred bytes. */
    static final int BATCH = 512;

    private final CuratorFramework curator;
    private final ZooKeeperConnection connection;
    private final HeldGrants held;
    private final ZooKeeperErrors errors;

    ZooKeeperRenewal(
            CuratorFramework curator, ZooKeeperConnection connection, HeldGrants held, ZooKeeperErrors errors) {
        this.curator = curator;
        this.connection = connection;
        this.held = held;
        this.errors = errors;
    }

    RenewResult renew(Grant grant, Duration lease) {
        ContenderNode node = (ContenderNode) grant.state();
        requireConnected(grant.name(), node, "renew", "");
        long start = System.nanoTime();
        Stat stat;
        try {
            stat = curator.checkExists().forPath(node.path());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw errors.unavailable(grant.name(), "interrupted while renewing", e);
        } catch (Exception e) {
            throw errors.unavailable(grant.name(), "could not renew", e);
        }
        if (stat == null || stat.getCzxid() != node.czxid()) {
            return gone(node);
        }
        return RenewResult.renewed(start + held.validityNanos(lease));
    }

    List<RenewResult> renewAll(List<Grant> grants, List<Duration> leases) {
        int n = grants.size();
        String first = grants.get(0).name();
        String among = n + " locks, among them";
        requireConnected(first, (ContenderNode) grants.get(0).state(), "renew " + n + " locks", ", among them");
        long start = System.nanoTime();
        RenewResult[] out = new RenewResult[n];
        int from = 0;
        while (from < n) {
            int failed;
            try {
                List<CuratorOp> checks = new ArrayList<>(n - from);
                for (int i = from; i < n; i++) {
                    checks.add(curator.transactionOp().check().forPath(node(grants.get(i)).path()));
                }
                curator.transaction().forOperations(checks);
                failed = -1;
            } catch (KeeperException e) {
                failed = firstFailedCheck(e);
                if (failed < 0 || e.code() != KeeperException.Code.NONODE) {
                    throw errors.unavailable(first, "could not renew " + among, e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw errors.unavailable(first, "interrupted while renewing " + among, e);
            } catch (Exception e) {
                throw errors.unavailable(first, "could not renew " + among, e);
            }
            int passed = failed < 0 ? n - from : failed;
            for (int i = from; i < from + passed; i++) {
                out[i] = RenewResult.renewed(start + held.validityNanos(leases.get(i)));
            }
            if (failed < 0) {
                break;
            }
            out[from + failed] = gone(node(grants.get(from + failed)));
            from += failed + 1;
        }
        return Arrays.asList(out);
    }

    /** The index of the check that failed a multi, or -1 when the reply does not say (not a failed check). */
    private static int firstFailedCheck(KeeperException e) {
        List<OpResult> results = e.getResults();
        if (results == null) {
            return -1;
        }
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult err
                    && err.getErr() != KeeperException.Code.OK.intValue()) {
                return err.getErr() == KeeperException.Code.NONODE.intValue() ? i : -1;
            }
        }
        return -1;
    }

    /** A grant whose node is gone: not held, and SESSION_LOST when its session is not the current one. */
    private RenewResult gone(ContenderNode node) {
        held.forget(node);
        boolean sessionEnded = node.sessionId() != connection.sessionId() && node.sessionId() != 0;
        return sessionEnded ? RenewResult.notHeld(LockLoss.Reason.SESSION_LOST) : RenewResult.notHeld();
    }

    private void requireConnected(String name, ContenderNode node, String what, String then) {
        if (!connection.isConnected()) {
            throw errors.unavailable(
                    name,
                    "cannot " + what + " while the connection is suspended (session 0x"
                            + Long.toHexString(node.sessionId()) + " may expire)" + then,
                    null);
        }
    }

    private static ContenderNode node(Grant grant) {
        return (ContenderNode) grant.state();
    }
}
