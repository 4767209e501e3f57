package io.latchkey.mongodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import io.latchkey.Capability;
import io.latchkey.Fairness;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The change-stream wake-ups (MongoWaiting) on mongo-java-server with its oplog on. The emulator's change streams send
 * delete events as MongoDB does but update events without the document's id (the canary below), so the path from a
 * stream event to a woken waiter is proven here with a deleted lock document, and a release's update event only on a
 * real deployment ({@code MongoDeploymentTckTest}'s NATIVE_WAIT rules).
 */
class MongoWaitingTest {
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static EmbeddedMongo mongo;
    private static MongoClient raw;

    @BeforeAll
    static void start() {
        mongo = new EmbeddedMongo(true);
        raw = MongoClients.create(mongo.directUri());
    }

    @AfterAll
    static void stop() {
        if (raw != null) {
            raw.close();
        }
        if (mongo != null) {
            mongo.close();
        }
    }

    @Test
    @DisplayName("changeStreams=auto on a standalone server polls: no stream, NATIVE_WAIT not claimed")
    void autoOnAStandaloneServerPolls() {
        try (MongoLockBackend b = MongoLockBackend.connect(mongo.uri())) {
            assertThat(b.capabilities()).doesNotContain(Capability.NATIVE_WAIT);
            assertThat(b.streamOpen()).isFalse();
        }
        try (MongoLockBackend b = MongoLockBackend.builder(raw).build()) {
            assertThat(b.capabilities()).doesNotContain(Capability.NATIVE_WAIT);
        }
    }

    @Test
    @DisplayName("a lock document deleted while a waiter waits wakes it through the stream, not its 60 s pause")
    void aDeletedLockDocumentWakesTheWaiter() throws Exception {
        try (MongoLockBackend holder = MongoLockBackend.connect(mongo.uri());
                MongoLockBackend waiter = MongoLockBackend.connect(mongo.watchingUri())) {
            assertThat(waiter.capabilities()).contains(Capability.NATIVE_WAIT);
            await().atMost(Duration.ofSeconds(10)).until(waiter::streamOpen);
            String name = "deleted-" + System.nanoTime();
            assertThat(holder.tryAcquire(request(name, "holder"))).isInstanceOf(Grant.class);

            CompletableFuture<Long> wokenAt = waitOnce(waiter, name, LEASE);
            long deleted = System.nanoTime();
            locks().deleteOne(Filters.eq("_id", "/" + name)); // the default namespace's id
            long at = wokenAt.get(10, TimeUnit.SECONDS);
            assertThat(at).as("woken by the stream, not by its timeout").isNotNegative();
            assertThat(Duration.ofNanos(at - deleted)).isLessThan(Duration.ofSeconds(2));
        }
    }

    @Test
    @DisplayName("a stream filtered to one namespace ignores the deletion of another namespace's lock")
    void anotherNamespaceDoesNotWakeTheWaiter() throws Exception {
        try (MongoLockBackend holder = MongoLockBackend.connect(mongo.uri() + "?namespace=other");
                MongoLockBackend waiter = MongoLockBackend.connect(mongo.watchingUri() + "&namespace=mine")) {
            await().atMost(Duration.ofSeconds(10)).until(waiter::streamOpen);
            String name = "ns-" + System.nanoTime();
            assertThat(holder.tryAcquire(request(name, "holder"))).isInstanceOf(Grant.class);
            try (MongoLockBackend mineHolder = MongoLockBackend.connect(mongo.uri() + "?namespace=mine")) {
                assertThat(mineHolder.tryAcquire(request(name, "holder"))).isInstanceOf(Grant.class);
            }
            CompletableFuture<Long> wokenAt = waitOnce(waiter, name, Duration.ofMillis(1500));
            locks().deleteOne(Filters.eq("_id", "other/" + name));
            assertThat(wokenAt.get(10, TimeUnit.SECONDS))
                    .as("the wait must end by its timeout")
                    .isNegative();
        }
    }

    @Test
    @DisplayName("after an outage the stream is reopened and every waiter is woken to look again")
    void aReopenedStreamWakesTheWaiters() throws Exception {
        try (MongoLockBackend holder = MongoLockBackend.connect(mongo.directUri());
                MongoLockBackend waiter = MongoLockBackend.connect(mongo.watchingUri())) {
            await().atMost(Duration.ofSeconds(10)).until(waiter::streamOpen);
            String name = "reopen-" + System.nanoTime();
            assertThat(holder.tryAcquire(request(name, "holder"))).isInstanceOf(Grant.class);
            CompletableFuture<Long> wokenAt = waitOnce(waiter, name, LEASE);
            AutoCloseable outage = mongo.outage();
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> !waiter.streamOpen());
                assertThat(wokenAt).isNotDone();
            } finally {
                outage.close();
            }
            await().atMost(Duration.ofSeconds(20)).until(waiter::streamOpen);
            assertThat(wokenAt.get(10, TimeUnit.SECONDS))
                    .as("woken when the stream came back")
                    .isNotNegative();
        }
    }

    @Test
    @DisplayName("canary: the emulator's update events still lack the document's id (else run the TCK with streams)")
    void theEmulatorsUpdateEventsLackTheDocumentId() {
        MongoCollection<Document> c = raw.getDatabase("latchkey").getCollection("canary");
        c.insertOne(new Document("_id", "a").append("owner", "x"));
        try (var cursor = c.watch().cursor()) {
            c.updateOne(Filters.eq("_id", "a"), Updates.unset("owner"));
            ChangeStreamDocument<Document> event = await().atMost(Duration.ofSeconds(5))
                    .until(cursor::tryNext, e -> e != null);
            assertThat(event.getDocumentKey())
                    .as("mongo-java-server now sends update events as MongoDB does: run MongoJavaServerTckTest with"
                            + " changeStreams=on so that the NATIVE_WAIT rules prove releases wake waiters")
                    .doesNotContainKey("_id");
        }
    }

    private static MongoCollection<Document> locks() {
        return raw.getDatabase("latchkey").getCollection("latchkey_locks");
    }

    private static AcquireRequest request(String name, String owner) {
        return new AcquireRequest(name, owner, LEASE, Fairness.NONE);
    }

    /**
     * On another thread, as the core does: one attempt that must find the name busy, then one awaitChange; completes
     * with when it was woken, or -1 if the wait ended by its timeout.
     */
    private static CompletableFuture<Long> waitOnce(MongoLockBackend backend, String name, Duration timeout)
            throws InterruptedException {
        CompletableFuture<Long> wokenAt = new CompletableFuture<>();
        java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                assertThat(backend.tryAcquire(request(name, "waiter"))).isInstanceOf(Busy.class);
                asked.countDown();
                boolean woken = backend.awaitChange(name, timeout);
                wokenAt.complete(woken ? System.nanoTime() : -1L);
            } catch (Throwable e) {
                wokenAt.completeExceptionally(e);
                asked.countDown();
            }
        });
        t.setDaemon(true);
        t.start();
        asked.await(10, TimeUnit.SECONDS);
        return wokenAt;
    }
}
