package io.latchkey.zookeeper;

import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.SemaphoreCounts;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * What is done to a queue other than joining it: read its holder (inspect), count a semaphore's free permits,
 * turn a writer into a reader in its place (downgrade), and remove its holder for an operator (forced release). Each reads the queue with one getChildren and retries when a
 * node it read vanished in between.
 *
 * Stateless apart from the client it is given: safe to share between threads.
 */
final class Queues {
    private static final Logger log = LoggerFactory.getLogger(Queues.class);

    private final CuratorFramework curator;
    private final String description;

    Queues(CuratorFramework curator, String description) {
        this.curator = curator;
        this.description = description;
    }

    /** The contenders under {@code parent}, in queue order; empty if the parent does not exist. */
    List<String> contenders(String parent) throws Exception {
        try {
            return LockPaths.contenders(curator.getChildren().forPath(parent));
        } catch (KeeperException.NoNodeException none) {
            return List.of();
        }
    }

    /** The holder of the exclusive lock queued under {@code parent}. */
    Optional<LockInfo> holderOf(String name, String parent) throws Exception {
        for (; ; ) {
            List<String> queue = contenders(parent);
            if (queue.isEmpty()) {
                return Optional.empty();
            }
            String node = queue.get(0);
            Stat stat = curator.checkExists().forPath(parent + "/" + node);
            if (stat != null) {
                return Optional.of(new LockInfo(
                        name,
                        LockPaths.ownerOf(node),
                        stat.getCzxid(),
                        Optional.of(Instant.ofEpochMilli(stat.getCtime())),
                        Optional.empty()));
            }
            // released between the two reads: look again
        }
    }

    /**
     * The permits of a semaphore under {@code parent} that no holder has: {@code limit} minus what the admitted
     * prefix of the queue holds (waiters hold nothing). A queue made with another count is refused.
     */
    int availablePermits(String name, String parent, int limit) throws Exception {
        long held = 0;
        for (String node : contenders(parent)) {
            if (LockPaths.limitOf(node) != limit) {
                throw SemaphoreCounts.conflict(name, description, LockPaths.limitOf(node), limit);
            }
            if (held + LockPaths.permitsOf(node) > limit) {
                break; // this one waits, and so does everyone behind it
            }
            held += LockPaths.permitsOf(node);
        }
        return (int) (limit - held);
    }

    /**
     * Turns a held write node into a read node of {@code read}'s owner in one multi-operation: the writer's node
     * goes and an ephemeral reader node with the writer's sequence number comes, so the reader keeps the writer's
     * place in the queue (nobody behind it is admitted in between, and readers behind it now may be). The grant
     * keeps the writer's token (see ZooKeeperLockBackend.downgrade). Null if the write node was gone.
     */
    ContenderNode downgrade(ContenderNode write, AcquireRequest read) throws Exception {
        String marker = LockPaths.marker(read.kind(), read.owner());
        String writeNode = write.nodeName();
        String path = write.parent() + "/" + marker + writeNode.substring(writeNode.length() - 10);
        try {
            curator.transaction()
                    .forOperations(
                            curator.transactionOp().delete().forPath(write.path()),
                            curator.transactionOp()
                                    .create()
                                    .withMode(CreateMode.EPHEMERAL)
                                    .forPath(path, read.owner().getBytes(StandardCharsets.UTF_8)));
        } catch (KeeperException.NoNodeException gone) {
            return null;
        }
        Stat stat = curator.checkExists().forPath(path);
        if (stat == null) {
            return null; // the session ended just now: the read node went with it
        }
        return new ContenderNode(path, write.parent(), marker, stat.getCzxid(), stat.getEphemeralOwner());
    }

    /** Deletes the head of the exclusive lock's queue; false if nobody held it. */
    boolean forceRelease(String name, String parent) throws Exception {
        for (; ; ) {
            List<String> queue = contenders(parent);
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
    }
}
