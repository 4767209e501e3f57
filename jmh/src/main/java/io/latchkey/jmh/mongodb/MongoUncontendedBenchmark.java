package io.latchkey.jmh.mongodb;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.latchkey.DistributedLock;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Uncontended acquire + release on mongo-java-server (in this JVM, in memory), each thread on its own name:
 * <ul>
 *   <li>{@code latchkey}: the full API on lock-mongodb: a conditional {@code findOneAndUpdate} judged by the
 *       server's {@code $$NOW} and a conditional {@code updateOne} (owner, token, liveness);</li>
 *   <li>{@code rawDriver}: the floor, the same two commands by hand with the weakest conditions that still exclude
 *       (owner absent; owner equal), no expiry and no token.</li>
 * </ul>
 * Both use the majority write concern of lock-mongodb's default (the emulator ignores it). Not a MongoDB figure:
 * the server is an emulation sharing the JVM and its two cores with the clients.
 *
 * <pre>java -jar benchmarks.jar mongodb.MongoUncontended</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
// 5 x 5 s: after 2 x 2 s the C2 compiler took 20-22 % of the JVM's CPU during the measurement at 8 threads (the
// server runs in this JVM); after 5 x 5 s, 3 % for Latchkey and under 1 % for the raw driver (jmh/README.md)
@Warmup(iterations = 5, time = 5)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class MongoUncontendedBenchmark {
    static final AtomicInteger IDS = new AtomicInteger();

    MongoServer server;
    String uri;
    LockClient latchkey;
    MongoClient raw;
    MongoCollection<Document> rawLocks;

    @Setup(Level.Trial)
    public void open() {
        server = new MongoServer(new MemoryBackend());
        uri = "mongodb://127.0.0.1:" + server.bind().getPort() + "/bench";
        latchkey = Latchkey.connect(uri);
        raw = MongoClients.create(uri);
        rawLocks = raw.getDatabase("bench")
                .getCollection("raw_locks")
                .withWriteConcern(com.mongodb.WriteConcern.MAJORITY);
    }

    @TearDown(Level.Trial)
    public void close() {
        latchkey.close();
        raw.close();
        server.shutdownNow();
    }

    /** Each thread's own names, created before the measurement (the first use of a name creates its document). */
    @State(Scope.Thread)
    public static class PerThread {
        DistributedLock lock;
        String rawId;
        String owner;

        @Setup(Level.Trial)
        public void open(MongoUncontendedBenchmark b) throws InterruptedException {
            int id = IDS.incrementAndGet();
            lock = b.latchkey.lock("bench/uncontended-" + id);
            lock.acquire(Duration.ofSeconds(10)).release();
            rawId = "raw/uncontended-" + id;
            owner = "raw-owner-" + id;
            b.rawLocks.insertOne(new Document("_id", rawId));
        }
    }

    @Benchmark
    @Threads(1)
    public long latchkey_1thread(PerThread t) throws InterruptedException {
        return latchkeyCycle(t);
    }

    @Benchmark
    @Threads(8)
    public long latchkey_8threads(PerThread t) throws InterruptedException {
        return latchkeyCycle(t);
    }

    @Benchmark
    @Threads(1)
    public boolean rawDriver_1thread(PerThread t) {
        return rawCycle(t);
    }

    @Benchmark
    @Threads(8)
    public boolean rawDriver_8threads(PerThread t) {
        return rawCycle(t);
    }

    private static long latchkeyCycle(PerThread t) throws InterruptedException {
        LockHandle h = t.lock.acquire(Duration.ofSeconds(10));
        long token = h.fencingToken();
        h.release();
        return token;
    }

    private boolean rawCycle(PerThread t) {
        Document got = rawLocks.findOneAndUpdate(
                Filters.and(Filters.eq("_id", t.rawId), Filters.exists("owner", false)),
                Updates.combine(Updates.set("owner", t.owner), Updates.currentDate("since")),
                new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER));
        if (got == null) {
            throw new IllegalStateException("an uncontended raw lock was busy");
        }
        return rawLocks.updateOne(
                                Filters.and(Filters.eq("_id", t.rawId), Filters.eq("owner", t.owner)),
                                Updates.unset("owner"))
                        .getModifiedCount()
                == 1;
    }
}
