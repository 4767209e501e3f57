package io.latchkey.mongodb;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import io.latchkey.spi.DaemonThreads;
import io.latchkey.spi.WakeBoard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Change-stream wake-ups: ONE change stream and one daemon thread per client (backend), whatever the number of
 * waiters. The stream's pipeline passes only what frees a name: an update that removed the owner field (release and
 * forceRelease unset it, MongoStatements.vacate), and a delete or replace of a document (an administrator's hand, a
 * clean-up), restricted to this client's namespace; grants and renewals never reach the client. Each event signals
 * the name's key on the spi's WakeBoard, which wakes one of this client's waiters on that name.
 *
 * No wake-up may be lost between a waiter's busy attempt and its wait: tryAcquire takes the board's snapshot before
 * it sends the attempt (a thread-local, since the core calls awaitChange on the thread whose attempt found the name
 * busy), and a release recorded after it ends the wait at once. A stream starts "now", so releases written while no
 * stream was open are unknown: every time a stream is (re)opened, every waiter is woken to look again. While no
 * stream is open, waiters wait out their pause (the core's backoff, capped by the holder's lease), as when polling:
 * a lost wake-up costs one backoff, never a lease. Expiry writes nothing and so sends no event; the busy answer's
 * retryAfter (the lease left) is what ends that pause.
 *
 * A server that answers an empty getMore at once instead of waiting up to maxAwaitTime (mongo-java-server does)
 * would make the reader spin; an empty answer that came back in less than half of maxAwaitTime is followed by a
 * short pause instead.
 *
 * Concurrency design. The reader thread alone touches the cursor (the driver's cursors are not thread-safe). close()
 * marks the waiting closed and interrupts the reader, which exits after its current getMore (at most maxAwaitTime;
 * at once when the backend's own client is closed under it, which fails the getMore). The board is thread-safe and
 * does no I/O.
 */
final class MongoWaiting implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MongoWaiting.class);
    /** How long one getMore waits on the server for an event, at most (and at most half the read timeout). */
    static final Duration MAX_AWAIT = Duration.ofMillis(500);
    /** The pause after an empty answer that did not wait (a server without awaitData). */
    private static final long EMPTY_PAUSE_MILLIS = 10;

    private final WakeBoard board = new WakeBoard();
    private final ThreadLocal<long[]> attemptSnapshot = ThreadLocal.withInitial(() -> new long[1]);
    private final MongoCollection<Document> locks;
    private final String idPrefix;
    private final String description;
    private final List<Bson> pipeline;
    private final long awaitMillis;
    private final Thread thread;
    private volatile boolean closed;
    private volatile boolean watching;
    private boolean warned; // the reader thread's own

    /**
     * @param idPrefix the start of every document id of this client (its namespace and '/')
     * @param readTimeout the socket read timeout, which a getMore waiting on the server must stay well within
     */
    MongoWaiting(MongoCollection<Document> locks, String idPrefix, String description, Duration readTimeout) {
        this.awaitMillis = Math.max(1, Math.min(MAX_AWAIT.toMillis(), readTimeout.toMillis() / 2));
        this.locks = locks;
        this.idPrefix = idPrefix;
        this.description = description;
        this.pipeline = releases(idPrefix);
        this.thread = DaemonThreads.start("latchkey-mongodb-watch", this::run);
    }

    /** The change stream's filter: what frees a name whose document id starts with {@code idPrefix}. */
    static List<Bson> releases(String idPrefix) {
        List<Bson> match = new ArrayList<>();
        match.add(Filters.or(
                Filters.and(Filters.eq("operationType", "update"), Filters.eq("updateDescription.removedFields", "owner")),
                Filters.in("operationType", "delete", "replace")));
        match.add(Filters.regex("documentKey._id", "^" + MongoStatements.literal(idPrefix)));
        return List.of(Aggregates.match(Filters.and(match)));
    }

    /** Call before sending an attempt whose busy answer may be followed by {@link #await} on this thread. */
    void beforeAttempt() {
        attemptSnapshot.get()[0] = board.snapshot();
    }

    /** Waits for a release of {@code name} after this thread's last attempt, or the timeout. */
    boolean await(String name, Duration timeout) throws InterruptedException {
        return board.await(name, timeout, attemptSnapshot.get()[0]);
    }

    /** Whether a stream is open now (tests). */
    boolean watching() {
        return watching;
    }

    private void run() {
        long backoff = 50;
        while (!closed) {
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> c = locks.watch(pipeline)
                    .maxAwaitTime(awaitMillis, TimeUnit.MILLISECONDS)
                    .cursor()) {
                watching = true;
                board.wakeAll(); // releases written while no stream was open are unknown
                backoff = 50;
                read(c);
            } catch (RuntimeException e) { // MongoException, or IllegalStateException once the client is closed
                if (!closed) {
                    if (!warned) {
                        warned = true;
                        log.warn(
                                "Change stream on {} failed ({}); waiters poll until it is back, retrying every"
                                        + " second at most",
                                description,
                                e.getMessage());
                    } else {
                        log.debug("Change stream on {} failed; reopening in {} ms", description, backoff, e);
                    }
                }
            } finally {
                watching = false;
            }
            if (!closed) {
                try {
                    TimeUnit.MILLISECONDS.sleep(backoff);
                } catch (InterruptedException e) {
                    return;
                }
                backoff = Math.min(1000, backoff * 2);
            }
        }
    }

    private void read(MongoChangeStreamCursor<ChangeStreamDocument<Document>> c) {
        long halfAwait = TimeUnit.MILLISECONDS.toNanos(awaitMillis) / 2;
        while (!closed) {
            long start = System.nanoTime();
            ChangeStreamDocument<Document> event = c.tryNext();
            if (event != null) {
                signal(event.getDocumentKey());
            } else if (System.nanoTime() - start < halfAwait) {
                try {
                    TimeUnit.MILLISECONDS.sleep(EMPTY_PAUSE_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void signal(BsonDocument key) {
        BsonValue id = key == null ? null : key.get("_id");
        if (id != null && id.isString() && id.asString().getValue().startsWith(idPrefix)) {
            board.signal(id.asString().getValue().substring(idPrefix.length()));
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
