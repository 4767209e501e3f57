package io.latchkey.mongodb;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.BackendUri;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.bson.Document;

/*
 * The SPI on one MongoDB collection (MongoStatements has the commands). Round trips: an uncontended acquire is one
 * findOneAndUpdate, a release one updateOne, a renewal one updateOne. A busy answer costs one more read (who holds it,
 * for how long); a same-owner retry whose grant stands (the reply of the first attempt was lost) restarts that
 * grant's lease with one more findOneAndUpdate and answers with its token, so its validity counts from before that
 * request, which the server stamped after. The first acquisition of a name ever also creates its document (a miss,
 * a read, the creating upsert, the grant: four, once per name).
 *
 * Validity is the request's start on this JVM's monotonic clock + the lease: the server judges the lease from its
 * own clock at the moment it applied the write, which is after the request started. Waiting: on a replica set or
 * mongos (or with changeStreams=on) one change stream per client wakes waiters at a release (MongoWaiting; NATIVE_WAIT
 * is claimed only then); otherwise the core polls with its backoff, capped by the holder's lease left.
 *
 * Concurrency: stateless apart from the driver's client, which is thread-safe; no lock is held around I/O.
 */
/**
 * Latchkey on MongoDB: one document per name in one collection, one conditional write per grant, expiry judged by
 * the server's clock. Create it with {@code Latchkey.connect("mongodb://host/db")} or {@link #connect(String)}.
 */
public final class MongoLockBackend implements LockBackend {
    private static final Set<Capability> POLLING = EnumSet.of(Capability.LISTING, Capability.SERVER_CLOCK);
    private static final Set<Capability> WATCHING =
            EnumSet.of(Capability.LISTING, Capability.SERVER_CLOCK, Capability.NATIVE_WAIT);
    /** A busy answer that found the grant gone before it could read it is tried again this often. */
    private static final int ATTEMPTS = 3;

    private final MongoConnection connection;
    private final MongoCollection<Document> locks;
    /** namespace + "/": the start of every document id of this client; a namespace has no '/', so ids never clash. */
    private final String idPrefix;
    /** The change stream that wakes waiters, or null when they poll. */
    private final MongoWaiting waiting;

    private MongoLockBackend(MongoConnection connection) {
        this.connection = connection;
        this.locks = connection.locks();
        this.idPrefix = connection.settings().namespace() + "/";
        this.waiting = connection.changeStreams()
                ? new MongoWaiting(
                        locks, idPrefix, connection.description(), connection.settings().timeout())
                : null;
    }

    /**
     * Connects to {@code mongodb://[user:password@]host[:port][,host...][/database][?options]} or
     * {@code mongodb+srv://...}, checking the server with a ping.
     *
     * @param uri the connection string; Latchkey's settings may be among its options
     * @return the backend
     * @throws IllegalArgumentException for a malformed URI or a bad setting
     * @throws io.latchkey.BackendUnavailableException when no server answers within connectTimeout or the
     *         credentials are refused
     */
    public static MongoLockBackend connect(String uri) {
        return connect(BackendUri.toUri(uri), Map.of());
    }

    /**
     * As {@link #connect(String)}, with settings ({@link MongoSettings#KEYS}, {@code user}, {@code password}, or any
     * option of the driver's connection string).
     *
     * @param uri the connection string
     * @param settings further settings; a key given both here and in the URI is an error
     * @return the backend
     */
    public static MongoLockBackend connect(URI uri, Map<String, String> settings) {
        return new MongoLockBackend(MongoConnection.open(uri, settings == null ? Map.of() : settings, true));
    }

    /**
     * A backend on the application's own client (its pool, credentials, TLS and timeouts), which the backend never
     * closes.
     *
     * @param client the application's client
     * @return a new builder
     */
    public static Builder builder(com.mongodb.client.MongoClient client) {
        if (client == null) {
            throw new IllegalArgumentException("the MongoClient must not be null");
        }
        return new Builder(client);
    }

    /** Builds a backend on a client the application owns. Not thread-safe. */
    public static final class Builder {
        private final com.mongodb.client.MongoClient client;
        private MongoSettings settings = MongoSettings.defaults();
        private String description = "mongodb (application client)";

        private Builder(com.mongodb.client.MongoClient client) {
            this.client = client;
        }

        /**
         * Database, collection, namespace and the concerns of the lock collection ({@code timeout} and
         * {@code connectTimeout} are the client's own here).
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(MongoSettings settings) {
            this.settings = java.util.Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * How the backend names itself in messages, e.g. {@code mongodb://db1:27017/orders}; any password is
         * redacted.
         *
         * @param description the text
         * @return this builder
         */
        public Builder description(String description) {
            if (description == null || description.isBlank()) {
                throw new IllegalArgumentException("description must be a non-blank text such as mongodb://db1/orders");
            }
            this.description = io.latchkey.spi.Redaction.redact(description);
            return this;
        }

        /**
         * The backend. With the changeStreams setting {@code auto} (default) it pings the server once, so that the driver
         * knows whether the deployment is a replica set, a sharded cluster or load-balanced, whose change streams then wake waiters; with {@code on} or
         * {@code off} nothing is sent until the first call.
         *
         * @return the backend
         */
        public MongoLockBackend build() {
            return new MongoLockBackend(MongoConnection.ofClient(client, settings, description));
        }
    }

    @Override
    public String description() {
        return connection.description();
    }

    @Override
    public Set<Capability> capabilities() {
        return waiting != null ? WATCHING : POLLING;
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        requireExclusive(request.kind());
        String id = idPrefix + request.name();
        long leaseMs = leaseMillis(request.lease());
        if (waiting != null) {
            waiting.beforeAttempt();
        }
        try {
            for (int attempt = 1; ; attempt++) {
                long start = System.nanoTime();
                Document granted = locks.findOneAndUpdate(
                        MongoStatements.grantable(id),
                        MongoStatements.grant(request.owner(), leaseMs),
                        MongoStatements.WRITE_OPTIONS);
                if (granted != null) {
                    return grant(request, granted, start);
                }
                // held (by this owner: an earlier attempt whose reply was lost; or by another), or a new name
                Document holder = locks.find(MongoStatements.held(id))
                        .projection(MongoStatements.INFO)
                        .first();
                if (holder != null && !request.owner().equals(holder.getString("owner"))) {
                    return busy(holder);
                }
                if (holder != null) {
                    long retryStart = System.nanoTime();
                    Document mine = locks.findOneAndUpdate(
                            MongoStatements.heldBy(id, request.owner()),
                            MongoStatements.extend(leaseMs),
                            MongoStatements.WRITE_OPTIONS);
                    if (mine != null) {
                        return grant(request, mine, retryStart); // same token, its lease restarted
                    }
                } else {
                    // no live grant: the name has no document yet, or its grant ended between the two reads
                    locks.updateOne(
                            MongoStatements.document(id), MongoStatements.create(), MongoStatements.CREATE_OPTIONS);
                }
                if (attempt == ATTEMPTS) {
                    return Busy.UNKNOWN; // freed and taken again between every read: let the core pause
                }
            }
        } catch (MongoException e) {
            throw connection.unavailable("acquire", request.name(), e);
        }
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        if (waiting == null) {
            return LockBackend.super.awaitChange(name, timeout);
        }
        return waiting.await(name, timeout);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        long start = System.nanoTime();
        try {
            long matched = locks.updateOne(
                            MongoStatements.heldExactly(
                                    idPrefix + grant.name(), grant.owner(), grant.fencingToken()),
                            MongoStatements.extend(leaseMillis(lease)))
                    .getMatchedCount();
            // not matched: expired, or forced out; the core tells which by the grant's validity
            return matched == 1 ? RenewResult.renewed(start + lease.toNanos()) : RenewResult.notHeld();
        } catch (MongoException e) {
            throw connection.unavailable("renew", grant.name(), e);
        }
    }

    @Override
    public boolean release(Grant grant) {
        try {
            return locks.updateOne(
                                    MongoStatements.heldExactly(
                                            idPrefix + grant.name(), grant.owner(), grant.fencingToken()),
                                    MongoStatements.vacate())
                            .getMatchedCount()
                    == 1;
        } catch (MongoException e) {
            throw connection.unavailable("release", grant.name(), e);
        }
    }

    @Override
    public boolean forceRelease(String name) {
        try {
            return locks.updateOne(MongoStatements.held(idPrefix + name), MongoStatements.vacate())
                            .getMatchedCount()
                    == 1;
        } catch (MongoException e) {
            throw connection.unavailable("forceRelease", name, e);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        try {
            Document d = locks.find(MongoStatements.held(idPrefix + name))
                    .projection(MongoStatements.INFO)
                    .first();
            return Optional.ofNullable(d).map(doc -> info(name, doc));
        } catch (MongoException e) {
            throw connection.unavailable("inspect", name, e);
        }
    }

    @Override
    public List<LockInfo> list(String prefix) {
        List<LockInfo> out = new ArrayList<>();
        try {
            for (Document d : locks.find(MongoStatements.heldUnder(idPrefix + prefix))
                    .projection(MongoStatements.INFO)) {
                out.add(info(d.getString("_id").substring(idPrefix.length()), d));
            }
        } catch (MongoException e) {
            throw connection.unavailable("list", null, e);
        }
        return out;
    }

    @Override
    public void close() {
        if (waiting != null) {
            waiting.close();
        }
        connection.close();
    }

    /** Whether this backend's change stream is open now (tests). */
    boolean streamOpen() {
        return waiting != null && waiting.watching();
    }

    @Override
    public String toString() {
        return "MongoLockBackend[" + description() + "]";
    }

    private static Grant grant(AcquireRequest request, Document doc, long start) {
        return new Grant(
                request.name(),
                request.owner(),
                doc.get("token", Number.class).longValue(),
                start + request.lease().toNanos(),
                null,
                request.kind());
    }

    private static Busy busy(Document holder) {
        Date since = holder.getDate("since");
        long leaseMs = holder.get("leaseMs", Number.class).longValue();
        // a pause hint only (never a decision): the server's expiry read on this machine's wall clock
        long left = since.getTime() + leaseMs - System.currentTimeMillis();
        Duration retryAfter = Duration.ofMillis(Math.max(1, Math.min(left, leaseMs)));
        return new Busy(holder.getString("owner"), holder.get("token", Number.class).longValue(), retryAfter);
    }

    private static LockInfo info(String name, Document d) {
        Date since = d.getDate("since");
        Date acquired = d.getDate("acquiredAt");
        long leaseMs = d.get("leaseMs", Number.class).longValue();
        return new LockInfo(
                name,
                d.getString("owner"),
                d.get("token", Number.class).longValue(),
                Optional.ofNullable(acquired).map(Date::toInstant),
                Optional.of(Instant.ofEpochMilli(since.getTime() + leaseMs)));
    }

    /** The lease in whole milliseconds, rounded up: the store keeps a grant at least as long as it was asked. */
    private static long leaseMillis(Duration lease) {
        long ms = lease.toMillis();
        return lease.minusMillis(ms).isZero() ? ms : ms + 1;
    }

    private void requireExclusive(GrantKind kind) {
        if (kind.type() != GrantKind.Type.EXCLUSIVE) {
            throw new UnsupportedOperationException(
                    "MongoDB backend " + description() + " offers exclusive locks only, not " + kind);
        }
    }
}
