package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.latchkey.BackendUnavailableException;
import io.latchkey.DistributedLock;
import io.latchkey.Fairness;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockException;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.etcd.fixtures.EtcdCluster;
import io.latchkey.servers.ServerProcess;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.tck.faults.FaultProxy;
import io.latchkey.tck.LockHistory;
import io.latchkey.tck.LostUpdateRegister;
import io.latchkey.tck.OverlapDetector;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Faults on a real 3-member etcd cluster: lease revocation, a frozen leader, a dead holder, a waiter's expired or revoked lease. */
@Timeout(120)
class EtcdFaultTest {
    private static EtcdCluster etcd;
    private static Client admin;
    private final List<AutoCloseable> opened = new ArrayList<>();
    private String pauseProgress = "no progress while paused";
    private String resumeProgress = "no progress after resume";
    private final String run =
            "fault-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);

    @BeforeAll
    static void startCluster() {
        etcd = EtcdCluster.start(3);
        admin = etcd.newClient();
    }

    @AfterAll
    static void stopCluster() {
        if (admin != null) {
            admin.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @AfterEach
    void closeClients() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    private EtcdLockBackend backend(Duration ttl) {
        return backend(ttl, Duration.ofMillis(500));
    }

    private EtcdLockBackend backend(Duration ttl, Duration waitRecheck) {
        EtcdLockBackend b = EtcdLockBackend.connect(
                etcd.uri(),
                Map.of(
                        "leaseTtl",
                        ttl.toSeconds() + "s",
                        "requestTimeout",
                        "1s",
                        "waitRecheck",
                        waitRecheck.toMillis() + "ms",
                        "keepaliveTimeout",
                        "2s"));
        opened.add(b);
        return b;
    }

    private LockClient client(Duration ttl) {
        LockClient c = Latchkey.client(backend(ttl));
        opened.add(c);
        return c;
    }

    private static long leaseOf(EtcdLockBackend b) {
        await().atMost(Duration.ofSeconds(10)).until(() -> b.leaseId().isPresent());
        return b.leaseId().getAsLong();
    }

    private void revoke(long lease) throws Exception {
        admin.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
    }

    private long contenders(String name) throws Exception {
        ByteSequence prefix = ByteSequence.from("latchkey/" + LockKeys.hex(name) + "/", StandardCharsets.UTF_8);
        return admin.getKVClient()
                .get(
                        prefix,
                        GetOption.builder().isPrefix(true).withCountOnly(true).build())
                .get(10, TimeUnit.SECONDS)
                .getCount();
    }

    @Test
    @DisplayName(
            "revoking the holder's lease reports SESSION_LOST to it, another client acquires, and the first client works on with a new lease")
    void revokedLeaseIsReportedAndTheLockPassesOn() throws Exception {
        EtcdLockBackend holderBackend = backend(Duration.ofSeconds(10));
        LockClient holder = Latchkey.client(holderBackend);
        opened.add(holder);
        LockClient other = client(Duration.ofSeconds(10));
        String name = run + "/revoked";
        LockHandle h = holder.lock(name).tryAcquire().orElseThrow();
        long lease = leaseOf(holderBackend);
        CompletableFuture<LockHandle> waiter = other.lock(name).acquireAsync(Duration.ofSeconds(30));

        revoke(lease);

        LockLoss loss = h.lost().toCompletableFuture().get(15, TimeUnit.SECONDS);
        assertThat(loss.reason()).isEqualTo(LockLoss.Reason.SESSION_LOST);
        assertThat(h.isValid()).isFalse();
        LockHandle next = waiter.get(5, TimeUnit.SECONDS);
        assertThat(next.fencingToken()).isGreaterThan(h.fencingToken());
        next.release();
        try (LockHandle again = holder.lock(name).acquire(Duration.ofSeconds(10))) {
            assertThat(holderBackend.leaseId()).isPresent();
            assertThat(holderBackend.leaseId().getAsLong()).as("a new lease").isNotEqualTo(lease);
            assertThat(again.fencingToken()).isGreaterThan(next.fencingToken());
        }
    }

    @Test
    @DisplayName("a holder that dies without releasing frees the lock within its lease TTL, not before")
    void deadHolderFreesTheLockWithinTheTtl() throws Exception {
        Duration ttl = Duration.ofSeconds(3);
        EtcdLockBackend doomed = backend(ttl);
        LockClient holder = Latchkey.client(doomed);
        LockClient waiter = client(ttl);
        String name = run + "/dead-holder";
        LockHandle h = holder.lock(name).tryAcquire().orElseThrow();
        CompletableFuture<LockHandle> next = waiter.lock(name).acquireAsync(Duration.ofSeconds(30));

        await().atMost(Duration.ofSeconds(10)).until(() -> contenders(name) == 2);

        long diedAt = System.nanoTime();
        doomed.crash(); // stops keep-alives and drops the connection; the lease is not revoked

        assertThat(contenders(name))
                .as("the dead holder's key is still there at first")
                .isEqualTo(2);
        LockHandle got = next.get(ttl.plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
        long took = System.nanoTime() - diedAt;
        assertThat(got.fencingToken()).isGreaterThan(h.fencingToken());
        assertThat(Duration.ofNanos(took))
                .as("freed after the dead holder's lease ran out")
                .isGreaterThan(Duration.ofMillis(500))
                .isLessThanOrEqualTo(ttl.plusSeconds(1)); // etcd checks expiry every 500 ms
        got.release();
    }

    @Test
    @DisplayName(
            "etcd issue 11456: a waiter whose lease EXPIRES while it waits (its traffic frozen) is never granted the lock")
    void waiterWhoseLeaseExpiresIsNeverGranted() throws Exception {
        String name = run + "/11456-expiry";
        LockClient holder = client(Duration.ofSeconds(10));
        LockClient third = client(Duration.ofSeconds(10));
        // the waiter reaches etcd only through a proxy that can freeze its traffic; a 2 s lease; a request
        // timeout long enough that a re-read sent while frozen is answered after the thaw; no periodic re-read
        FaultProxy proxy = FaultProxy.to(etcd.hostPorts().get(0));
        opened.add(proxy);
        EtcdLockBackend waiterBackend = EtcdLockBackend.connect(
                "etcd://" + proxy.hostPort(), Map.of("leaseTtl", "2s", "requestTimeout", "10s", "waitRecheck", "60s"));
        opened.add(waiterBackend);
        LockClient waiter = Latchkey.client(waiterBackend);
        opened.add(waiter);
        LockHistory history = new LockHistory();

        LockHandle h = holder.lock(name).tryAcquire().orElseThrow();
        LockHistory.Entry holderEntry = history.granted(h);
        long waiterLease = leaseOf(waiterBackend);
        CompletableFuture<LockHandle> waiting = waiter.lock(name)
                .acquireAsync(Duration.ofSeconds(60))
                .toCompletableFuture()
                .thenApply(got -> {
                    history.granted(got);
                    return got;
                });
        await().atMost(Duration.ofSeconds(10)).until(() -> contenders(name) == 2);

        proxy.freeze(); // keep-alives stop reaching etcd: the lease expires on the server, by itself
        await().atMost(Duration.ofSeconds(10)).until(() -> leaseRemainingTtl(waiterLease) < 0);
        assertThat(contenders(name))
                .as("the waiter's key went with its expired lease")
                .isEqualTo(1);
        holderEntry.released();
        h.release(); // the waiter's predecessor goes: in 11456 the waiter then saw no lower key and took the lock
        LockHandle other = third.lock(name).tryAcquire().orElseThrow(); // the lock is free for others
        LockHistory.Entry otherEntry = history.granted(other);
        proxy.heal(); // the waiter's frozen requests and events now arrive: its key is gone

        // it queues again, on a new lease, behind the third client, and is not granted while that one holds
        await().atMost(Duration.ofSeconds(20)).until(() -> waiting.isDone() || contenders(name) == 2);
        assertThat(waiting)
                .as("not granted while another client holds the lock")
                .isNotDone();
        assertThat(waiterBackend.leaseId()).isPresent();
        assertThat(waiterBackend.leaseId().getAsLong()).as("a new lease").isNotEqualTo(waiterLease);
        assertThat(waiting)
                .as("not granted while another client holds the lock")
                .isNotDone();
        assertThat(other.isValid()).isTrue();
        otherEntry.released();
        other.release();
        LockHandle got = waiting.get(10, TimeUnit.SECONDS);
        assertThat(got.fencingToken()).isGreaterThan(other.fencingToken());
        got.release();
        assertThat(history.violations()).isEmpty();
        assertThat(history.size()).isEqualTo(3);
    }

    private long leaseRemainingTtl(long lease) throws Exception {
        return admin.getLeaseClient()
                .timeToLive(lease, LeaseOption.DEFAULT)
                .get(10, TimeUnit.SECONDS)
                .getTTL();
    }

    @Test
    @DisplayName(
            "etcd issue 11456: a waiter whose lease is revoked while it waits, unknown to its client, is never granted the lock")
    void waiterWhoseLeaseEndsIsNeverGranted() throws Exception {
        EtcdLockBackend holderBackend = backend(Duration.ofSeconds(10));
        // a long TTL: the waiter's client learns nothing of the revocation from its keep-alive (every 20 s), so
        // only the re-read after the wake-up can tell it that its key is gone
        // and no periodic re-read either: the holder's release is what wakes it
        EtcdLockBackend waiterBackend = backend(Duration.ofSeconds(60), Duration.ofSeconds(60));
        EtcdLockBackend third = backend(Duration.ofSeconds(10));
        String name = run + "/11456";
        Grant held = (Grant) holderBackend.tryAcquire(
                new AcquireRequest(name, "holder", Duration.ofSeconds(30), Fairness.PREFERRED));
        long waiterLease = leaseOf(waiterBackend);
        CompletableFuture<AcquireResult> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return waiterBackend.acquire(
                        new AcquireRequest(name, "waiter", Duration.ofSeconds(30), Fairness.PREFERRED),
                        Duration.ofSeconds(60));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> contenders(name) == 2);

        revoke(waiterLease); // the waiter's key goes with its lease, while it waits
        await().atMost(Duration.ofSeconds(10)).until(() -> contenders(name) == 1);
        assertThat(holderBackend.release(held)).isTrue(); // wakes the waiter: no lower key is left

        AcquireResult result = waiting.get(10, TimeUnit.SECONDS);
        assertThat(result)
                .as("the waiter whose key vanished must not be granted")
                .isInstanceOf(Busy.class);
        assertThat(contenders(name)).isZero();
        AcquireResult free =
                third.tryAcquire(new AcquireRequest(name, "third", Duration.ofSeconds(30), Fairness.PREFERRED));
        assertThat(free).as("the lock is free for others").isInstanceOf(Grant.class);
        assertThat(third.release((Grant) free)).isTrue();
    }

    @Test
    @DisplayName("freezing the raft leader (SIGSTOP) while 8 clients contend keeps exclusion and progress")
    void frozenLeaderKeepsExclusionAndProgress() throws Exception {
        String name = run + "/frozen-leader";
        List<LockClient> clients = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            clients.add(client(Duration.ofSeconds(5)));
        }
        LockOptions options = LockOptions.builder()
                .retry(RetryStrategy.exponential(Duration.ofMillis(5), Duration.ofMillis(100)))
                .build();
        OverlapDetector detector = new OverlapDetector();
        LostUpdateRegister register = new LostUpdateRegister();
        LockHistory history = new LockHistory();
        AtomicLong grants = new AtomicLong();
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger lostWhileHeld = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(clients.size());
        List<Future<?>> workers = new ArrayList<>();
        int leader = etcd.leaderIndex(Duration.ofSeconds(20));
        ServerProcess frozen = etcd.member(leader);
        try {
            for (int i = 0; i < clients.size(); i++) {
                DistributedLock lock = clients.get(i).lock(name, options);
                String who = "client-" + i;
                workers.add(pool.submit(() -> {
                    while (!stop.get()) {
                        LockHandle h;
                        try {
                            h = lock.acquire(Duration.ofSeconds(10));
                        } catch (LockException e) {
                            failures.incrementAndGet(); // unavailable or timed out while the cluster elects: try again
                            continue;
                        }
                        LockHistory.Entry e = history.granted(h);
                        detector.enter(who);
                        register.increment();
                        spin(Duration.ofNanos(200_000));
                        detector.exit(who);
                        if (!h.isValid()) {
                            lostWhileHeld.incrementAndGet();
                        }
                        e.released();
                        grants.incrementAndGet();
                        try {
                            h.release();
                        } catch (BackendUnavailableException unavailable) {
                            failures.incrementAndGet(); // deleted later by the background clean-up
                        }
                    }
                    return null;
                }));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> grants.get() >= 100);

            frozen.pause();
            System.out.println(
                    java.time.LocalTime.now() + " paused leader m" + leader + " at " + grants.get() + " grants");
            long pausedAt = System.nanoTime();
            long atPause = grants.get();
            // the other two members elect a leader and serve; requests sent to the frozen one time out and are retried
            await().atMost(Duration.ofSeconds(40)).until(() -> grants.get() >= atPause + 100);
            pauseProgress = "100 grants " + (System.nanoTime() - pausedAt) / 1_000_000 + " ms after the pause";
            frozen.resume();
            System.out.println(
                    java.time.LocalTime.now() + " resumed leader m" + leader + " at " + grants.get() + " grants");
            long resumedAt = System.nanoTime();
            long atResume = grants.get();
            await().atMost(Duration.ofSeconds(40)).until(() -> grants.get() >= atResume + 100);
            resumeProgress = "100 grants " + (System.nanoTime() - resumedAt) / 1_000_000 + " ms after the resume";
        } finally {
            frozen.resume();
            stop.set(true);
            pool.shutdown();
        }
        for (Future<?> f : workers) {
            f.get(30, TimeUnit.SECONDS);
        }
        pool.shutdownNow();
        assertThat(detector.overlaps())
                .as("overlaps; first: %s", detector.firstOverlap())
                .isZero();
        assertThat(register.value()).isEqualTo(grants.get());
        assertThat(history.violations()).isEmpty();
        assertThat(history.size()).isEqualTo((int) grants.get());
        System.out.printf(
                "frozen leader m%d: %d grants, %d failed attempts (retried), %d grants lost while held; %s; %s%n",
                leader, grants.get(), failures.get(), lostWhileHeld.get(), pauseProgress, resumeProgress);
    }

    private static void spin(Duration d) {
        long end = System.nanoTime() + d.toNanos();
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
