package io.latchkey.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.latchkey.BackendUnavailableException;
import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.DaemonThreads;
import io.latchkey.spi.Deadlines;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.GrantLossSink;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.Reachability;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.StoreErrors;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The etcd v3 backend ({@code etcd://host:port[,host:port...][/namespace]}), on jetcd.
 *
 * <p>Protocol: one lease per client, granted once and kept alive; a contender key
 * {@code <namespace>/<hex name>/<lease id>} created by a transaction only if absent; the lowest create revision
 * holds the lock and is the fencing token; waiters watch only their predecessor's key, from the current
 * revision. See the module README for the details and the decisions.
 *
 * <pre>{@code
 * LockClient locks = Latchkey.connect("etcd://10.0.0.1:2379,10.0.0.2:2379", Map.of("leaseTtl", "10s"));
 * // or on a jetcd Client the application already has (never closed by Latchkey):
 * LockClient locks = Latchkey.client(EtcdLockBackend.builder(client).namespace("billing/locks").build());
 * }</pre>
 *
 * <p>Capabilities: {@link Capability#FAIR} (FIFO by create revision), {@link Capability#NATIVE_WAIT} (watch),
 * {@link Capability#SESSION_BOUND} (the lease: its loss is reported as {@code SESSION_LOST}),
 * {@link Capability#SERVER_CLOCK} (keys expire by the server's lease clock), {@link Capability#LISTING}, and
 * {@link Capability#READ_WRITE} and {@link Capability#SEMAPHORE} (the same queue with other admission rules,
 * {@link SharedContention}).
 *
 * <p>Thread-safe. Concurrency design: the backend holds no per-lock state; each grant carries its key and
 * revision ({@link HeldKey}). The code follows the backend shape of {@code docs/design.md} §5.2: the URI,
 * settings and client lifecycle are in {@link EtcdConnection}, the lease is owned by {@link EtcdRenewal} (its own
 * timer thread), the acquire protocol lives in {@link Contention} with its predecessor watch in
 * {@link EtcdWaiting}, leftover keys are removed by {@link Orphans}, and {@link EtcdListing} reads the queues
 * for inspect, list and force-release.
 */
public final class EtcdLockBackend implements LockBackend {
    private static final Logger log = LoggerFactory.getLogger(EtcdLockBackend.class);
    private static final Set<Capability> CAPABILITIES = EnumSet.of(
            Capability.FAIR,
            Capability.NATIVE_WAIT,
            Capability.SESSION_BOUND,
            Capability.SERVER_CLOCK,
            Capability.LISTING,
            Capability.READ_WRITE,
            Capability.SEMAPHORE);

    private final Client client;
    private final boolean ownsClient;
    private final EtcdSettings settings;
    private final String description;
    private final KV kv;
    private final LockKeys keys;
    private final EtcdCalls calls;
    private final EtcdRenewal keeper;
    private final KeyRenewal renewal;
    private final Orphans orphans;
    private final Contention contention;
    private final SharedContention shared;
    private final EtcdListing listing;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EtcdLockBackend(
            Client client, boolean ownsClient, EtcdSettings settings, String description, boolean waitForLease) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.settings = settings;
        this.description = description;
        this.kv = client.getKVClient();
        this.keys = new LockKeys(settings.namespace());
        this.calls = new EtcdCalls(description, settings.requestTimeout());
        this.orphans = new Orphans(kv, calls);
        this.keeper = new EtcdRenewal(
                client.getLeaseClient(), settings.leaseTtlSeconds(), calls, dead -> orphans.forgetLease(dead.id));
        this.contention =
                new Contention(kv, client.getWatchClient(), keys, keeper, orphans, calls, settings.waitRecheck());
        this.renewal = new KeyRenewal(kv, calls, contention, keeper);
        this.shared = new SharedContention(
                kv, client.getWatchClient(), keys, keeper, orphans, calls, contention, settings.waitRecheck());
        this.listing = new EtcdListing(kv, client.getLeaseClient(), keys, calls, description);
        if (waitForLease) {
            grantLeaseNow();
        } else {
            keeper.prefetch();
        }
    }

    /**
     * Grants the client's lease while the backend is built (waiting up to the request timeout), so that the
     * first acquisition is queued at once. A cluster that cannot be reached is not an error yet: the lease is
     * granted at first use then.
     */
    private void grantLeaseNow() {
        keeper.prefetch();
        try {
            keeper.session();
        } catch (RuntimeException e) {
            log.warn(
                    "Could not grant the lease of {} yet ({}); it will be granted at first use",
                    description,
                    e.getMessage());
        }
    }

    /**
     * Connects to {@code etcd://[user[:password]@]host:port[,host:port...][/namespace]}. Settings:
     * {@code namespace}, {@code leaseTtl}, {@code requestTimeout}, {@code waitRecheck}, {@code connectTimeout}, {@code keepaliveTime}, {@code keepaliveTimeout},
     * {@code user}, {@code password}, {@code tls}, {@code tlsCa}, {@code tlsCert}, {@code tlsKey}. The backend owns
     * the jetcd client it creates and closes it.
     *
     * @param uri the {@code etcd://} or {@code etcds://} URI
     * @param settings the settings besides the URI
     * @return the connected backend
     */
    public static EtcdLockBackend connect(String uri, Map<String, String> settings) {
        Objects.requireNonNull(settings, "settings");
        EtcdConnection c = EtcdConnection.parse(uri, settings);
        c.checkTlsFiles();
        long deadline = Deadlines.after(System.nanoTime(), c.connectTimeout());
        Reachability.Result reach = Reachability.probe(c.hostPorts(), deadline);
        if (!reach.anyAccepted()) {
            throw StoreErrors.cannotReach(c.target(), c.connectTimeout(), reach.reason(), null, null);
        }
        UnaryDeadline calls = new UnaryDeadline(c.settings().requestTimeout());
        calls.connecting(deadline);
        EtcdLockBackend b = new EtcdLockBackend(c.newClient(calls), true, c.settings(), c.description(), false);
        for (; ; ) {
            try {
                b.keeper.session(Math.max(1, deadline - System.nanoTime()));
                calls.connected();
                return b;
            } catch (RuntimeException e) {
                // a call's deadline can end before gRPC has recorded why the connection failed (a TLS alert comes
                // after the handshake): while time is left, ask again, so that the reason can be told
                if (!(e instanceof BackendUnavailableException)
                        || EtcdCalls.explain(e) != null
                        || deadline - System.nanoTime() < TimeUnit.MILLISECONDS.toNanos(100)) {
                    closeInBackground(b);
                    throw c.connectFailure(e);
                }
            }
        }
    }

    /* The caller has its answer; a channel to a silent server may take a while to shut down. */
    private static void closeInBackground(EtcdLockBackend b) {
        DaemonThreads.start("latchkey-etcd-close-unconnected", b::close);
    }

    /**
     * As {@link #connect(String, Map)} without settings.
     *
     * @param uri the {@code etcd://} or {@code etcds://} URI
     * @return the connected backend
     */
    public static EtcdLockBackend connect(String uri) {
        return connect(uri, Map.of());
    }

    /**
     * A backend on a jetcd client the application owns; {@link #close()} never closes that client.
     *
     * @param client the application's jetcd client
     * @return a new builder
     */
    public static EtcdLockBackendBuilder builder(Client client) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null: pass the application's io.etcd.jetcd.Client");
        }
        return new EtcdLockBackendBuilder(client);
    }

    static EtcdLockBackend onApplicationClient(Client client, EtcdSettings settings, String description) {
        return new EtcdLockBackend(client, false, settings, description, true);
    }

    /**
     * The id of this client's current etcd lease, if one has been granted (for operators and tests).
     *
     * @return the lease id, or empty before the first lease
     */
    public OptionalLong leaseId() {
        return keeper.currentLeaseId();
    }

    /**
     * The settings in force.
     *
     * @return the settings
     */
    public EtcdSettings settings() {
        return settings;
    }

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
        keeper.bind(sink);
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        checkOpen(request.name());
        try {
            return request.kind() == GrantKind.EXCLUSIVE ? contention.acquire(request, 0) : shared.acquire(request, 0);
        } catch (InterruptedException e) {
            throw new AssertionError("a single attempt never waits", e);
        }
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        checkOpen(request.name());
        long waitNanos = maxWait.isNegative() ? 0 : Math.max(1, Deadlines.after(0L, maxWait));
        return request.kind() == GrantKind.EXCLUSIVE
                ? contention.acquire(request, waitNanos)
                : shared.acquire(request, waitNanos);
    }

    @Override
    public Grant downgrade(Grant write, AcquireRequest read) {
        checkOpen(write.name());
        return shared.downgrade(held(write), read);
    }

    @Override
    public int availablePermits(String name, int limit) {
        checkOpen(name);
        return shared.availablePermits(name, limit);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        HeldKey h = held(grant);
        if (h.session() == null || h.session().alive()) {
            checkOpen(grant.name());
        }
        return renewal.renew(h, lease);
    }

    /** Exclusive grants renew in batches: one transaction of key reads per batch (see KeyRenewal). */
    @Override
    public int renewalBatchSize() {
        return KeyRenewal.BATCH;
    }

    @Override
    public List<RenewResult> renewAll(List<Grant> grants, List<Duration> leases) {
        List<HeldKey> keys = new java.util.ArrayList<>(grants.size());
        for (Grant g : grants) {
            keys.add(held(g));
        }
        checkOpen(grants.get(0).name());
        return renewal.renewAll(keys, leases);
    }

    @Override
    public boolean release(Grant grant) {
        HeldKey h = held(grant);
        if (h.session() != null) {
            h.session().grants.remove(h);
        }
        if (closed.get()) {
            return false; // the lease was revoked on close: the key is gone
        }
        try {
            return calls.await(
                            kv.txn()
                                    .If(new Cmp(h.key(), Cmp.Op.EQUAL, CmpTarget.createRevision(h.revision())))
                                    .Then(Op.delete(h.key(), DeleteOption.DEFAULT))
                                    .commit(),
                            "releasing",
                            grant.name())
                    .isSucceeded();
        } catch (BackendUnavailableException e) {
            // the lease is kept alive, so an undeleted key would hold the lock forever: keep trying in background
            if (h.session() != null && h.session().alive()) {
                orphans.add(new Orphans.Orphan(h.name(), h.key(), h.revision(), h.owner(), h.session().id));
            }
            throw e;
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        checkOpen(name);
        return listing.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        checkOpen(null);
        return listing.list(prefix);
    }

    @Override
    public boolean forceRelease(String name) {
        checkOpen(name);
        return listing.forceRelease(name);
    }

    /** Closes the backend: revokes its lease (every key on it goes at once) and closes the client if it owns it. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        orphans.close();
        keeper.close(true);
        if (ownsClient) {
            client.close();
        }
    }

    /**
     * Test hook: stops as a crashed process would, without revoking the lease, so its keys stay until the lease
     * expires on the server.
     */
    void crash() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        orphans.close();
        keeper.close(false);
        if (ownsClient) {
            client.close();
        }
    }

    private void checkOpen(String name) {
        if (closed.get()) {
            throw new IllegalStateException("etcd backend " + description + " is closed"
                    + (name == null ? "" : "; cannot use lock '" + name + "'"));
        }
    }

    private HeldKey held(Grant grant) {
        if (!(grant.state() instanceof HeldKey h)) {
            throw new IllegalArgumentException(
                    "grant for lock '" + grant.name() + "' was not made by an etcd backend: " + grant);
        }
        return h;
    }

    @Override
    public String toString() {
        return "EtcdLockBackend[" + description + ", " + settings + "]";
    }
}
