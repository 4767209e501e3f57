package io.latchkey.zookeeper;

import io.latchkey.LockInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/*
 * list(prefix) over the bucket layout (see LockPaths): read the base's buckets, check each bucket's child count,
 * read the buckets, then look up the holder of every matching name.
 *
 * Two rules keep a large listing from costing the session:
 *  - no getChildren is sent whose reply could exceed the client's packet limit (jute.maxbuffer): a bucket's
 *    child count (from exists) times the largest child (769 bytes) must fit, and the base must hold no more
 *    than the 4096 buckets. Otherwise the listing fails with an exception that says so, and the connection,
 *    the session and every lock held on it are untouched. (A reply over the limit makes the ZooKeeper client
 *    drop its connection: "Packet len ... is out of range".)
 *  - requests are pipelined, at most WINDOW in flight, through Curator's background calls: a listing of
 *    20,000 names takes seconds, not one round trip per request in sequence, and renewals of held locks
 *    interleave with it on the same connection.
 */
final class Listing {
    /** Requests in flight at once. */
    static final int WINDOW = 64;
    /** Reply header and vector length of a getChildren reply, with room to spare. */
    private static final int REPLY_OVERHEAD = 1024;

    private static final int DEFAULT_MAX_PACKET = 0xfffff; // ZooKeeper's jute.maxbuffer default (client side)

    private final CuratorFramework curator;
    private final LockPaths paths;
    private final LongSupplier replyTimeoutMillis;

    Listing(CuratorFramework curator, LockPaths paths, LongSupplier replyTimeoutMillis) {
        this.curator = curator;
        this.paths = paths;
        this.replyTimeoutMillis = replyTimeoutMillis;
    }

    /** Every held lock whose name starts with {@code prefix}, sorted by name. */
    List<LockInfo> list(String prefix) throws Exception {
        Stat base = curator.checkExists().forPath(paths.basePath());
        if (base == null) {
            return List.of();
        }
        if (base.getNumChildren() > LockPaths.BUCKETS) {
            throw new ListingTooLargeException(
                    paths.basePath() + " has " + base.getNumChildren() + " children, more than the "
                            + LockPaths.BUCKETS
                            + " buckets of this layout (nodes of another layout, such as an older Latchkey's, are"
                            + " under it); not reading it, so that the reply cannot exceed ZooKeeper's packet limit; remove them or use"
                            + " another basePath");
        }
        List<String> buckets;
        try {
            buckets = curator.getChildren().forPath(paths.basePath());
        } catch (KeeperException.NoNodeException gone) {
            return List.of();
        }
        buckets.removeIf(b -> !LockPaths.isBucket(b));

        long maxNames = (maxPacket() - REPLY_OVERHEAD) / LockPaths.MAX_CHILD_BYTES;
        List<Stat> counts = pipeline(buckets, b -> stat(paths.bucketPath(b)));
        List<String> toRead = new ArrayList<>();
        for (int i = 0; i < buckets.size(); i++) {
            Stat s = counts.get(i);
            if (s == null || s.getNumChildren() == 0) {
                continue;
            }
            if (s.getNumChildren() > maxNames) {
                throw new ListingTooLargeException(
                        "bucket " + paths.bucketPath(buckets.get(i)) + " holds " + s.getNumChildren()
                                + " names, more than the " + maxNames
                                + " a reply within ZooKeeper's packet limit (jute.maxbuffer="
                                + maxPacket()
                                + ") can carry at the longest name length; not reading it, so that the connection is"
                                + " kept");
            }
            toRead.add(buckets.get(i));
        }

        List<List<String>> components = pipeline(toRead, b -> children(paths.bucketPath(b)));
        List<String> names = new ArrayList<>();
        for (int i = 0; i < toRead.size(); i++) {
            List<String> in = components.get(i);
            if (in == null) {
                continue;
            }
            String bucketPath = paths.bucketPath(toRead.get(i));
            for (String component : in) {
                String name = LockPaths.nameOf(component);
                if (name != null
                        && name.startsWith(prefix)
                        && paths.parent(name).equals(bucketPath + "/" + component)) {
                    names.add(name);
                }
            }
        }
        names.sort(Comparator.naturalOrder());

        List<Optional<LockInfo>> holders = pipeline(names, name -> holder(name, paths.parent(name)));
        List<LockInfo> out = new ArrayList<>(names.size());
        for (Optional<LockInfo> h : holders) {
            h.ifPresent(out::add);
        }
        return out;
    }

    private long maxPacket() {
        try {
            return curator.getZookeeperClient()
                    .getZooKeeper()
                    .getClientConfig()
                    .getInt("jute.maxbuffer", DEFAULT_MAX_PACKET);
        } catch (Exception e) {
            return DEFAULT_MAX_PACKET;
        }
    }

    /** Runs {@code op} for every input with at most WINDOW in flight; results in input order. */
    private <T> List<T> pipeline(List<String> inputs, Function<String, CompletableFuture<T>> op) throws Exception {
        long timeout = replyTimeoutMillis.getAsLong();
        Semaphore window = new Semaphore(WINDOW);
        List<CompletableFuture<T>> futures = new ArrayList<>(inputs.size());
        for (String in : inputs) {
            if (!window.tryAcquire(timeout, TimeUnit.MILLISECONDS)) {
                throw new TimeoutException("no reply from ZooKeeper within " + timeout + " ms while listing");
            }
            CompletableFuture<T> f = op.apply(in);
            f.whenComplete((r, e) -> window.release());
            futures.add(f);
            if (f.isCompletedExceptionally()) {
                break;
            }
        }
        List<T> out = new ArrayList<>(futures.size());
        for (CompletableFuture<T> f : futures) {
            try {
                out.add(f.get(timeout, TimeUnit.MILLISECONDS));
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception ex ? ex : e;
            }
        }
        return out;
    }

    /** The holder of one name: its lowest contender node's owner and czxid (empty if nobody holds it). */
    private CompletableFuture<Optional<LockInfo>> holder(String name, String parent) {
        return children(parent).thenCompose(nodes -> {
            List<String> queue = nodes == null ? List.of() : LockPaths.contenders(nodes);
            if (queue.isEmpty()) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            String node = queue.get(0);
            return stat(parent + "/" + node)
                    .thenCompose(stat -> stat == null
                            ? holder(name, parent) // released between the two reads: look again
                            : CompletableFuture.completedFuture(Optional.of(new LockInfo(
                                    name,
                                    LockPaths.ownerOf(node),
                                    stat.getCzxid(),
                                    Optional.of(Instant.ofEpochMilli(stat.getCtime())),
                                    Optional.empty()))));
        });
    }

    /** getChildren in the background; null if the node does not exist. */
    private CompletableFuture<List<String>> children(String path) {
        CompletableFuture<List<String>> f = new CompletableFuture<>();
        try {
            curator.getChildren()
                    .inBackground((client, event) -> complete(f, event, event.getChildren()))
                    .forPath(path);
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        return f;
    }

    /** exists in the background; null if the node does not exist. */
    private CompletableFuture<Stat> stat(String path) {
        CompletableFuture<Stat> f = new CompletableFuture<>();
        try {
            curator.checkExists()
                    .inBackground((client, event) -> complete(f, event, event.getStat()))
                    .forPath(path);
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        return f;
    }

    private static <T> void complete(CompletableFuture<T> f, CuratorEvent event, T value) {
        KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
        if (code == KeeperException.Code.OK) {
            f.complete(value);
        } else if (code == KeeperException.Code.NONODE) {
            f.complete(null);
        } else {
            f.completeExceptionally(KeeperException.create(code, event.getPath()));
        }
    }

    /** A listing that would need a reply larger than ZooKeeper's packet limit; nothing was sent. */
    static final class ListingTooLargeException extends Exception {
        private static final long serialVersionUID = 1L;

        ListingTooLargeException(String message) {
            super(message);
        }
    }
}
