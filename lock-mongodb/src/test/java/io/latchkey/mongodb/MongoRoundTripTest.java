package io.latchkey.mongodb;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Round trips, counted by the driver's command listener on an application client (MongoLockBackend.builder): an
 * uncontended acquire + release is 2 commands (design §8), a busy answer one more read, and the application's
 * client stays open when the backend closes.
 */
class MongoRoundTripTest {
    private static EmbeddedMongo mongo;
    private final List<String> commands = new CopyOnWriteArrayList<>();
    /** Every upsert sent, as JSON: MongoDB refuses $expr in an upsert's query (mongo-java-server does not). */
    private final List<String> upserts = new CopyOnWriteArrayList<>();
    private MongoClient app;
    private LockClient client;

    @BeforeAll
    static void start() {
        mongo = new EmbeddedMongo();
    }

    @AfterAll
    static void stop() {
        mongo.close();
    }

    private LockClient counted() {
        app = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(mongo.directUri()))
                .addCommandListener(new CommandListener() {
                    @Override
                    public void commandStarted(CommandStartedEvent event) {
                        commands.add(event.getCommandName());
                        String json = event.getCommand().toJson();
                        if (json.contains("\"upsert\": true")) {
                            upserts.add(json);
                        }
                    }
                })
                .build());
        client = Latchkey.client(MongoLockBackend.builder(app)
                .settings(MongoSettings.builder().database("roundtrips").build())
                .description("mongodb://test/roundtrips")
                .build());
        return client;
    }

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (app != null) {
            app.close();
        }
    }

    @Test
    @DisplayName("an uncontended acquire and release is two commands: findAndModify, update")
    void uncontendedCycleIsTwoCommands() {
        LockClient locks = counted();
        locks.lock("cycle").tryAcquire().orElseThrow().release(); // creates the name's document, once
        commands.clear();
        LockHandle h = locks.lock("cycle").tryAcquire().orElseThrow();
        h.release();
        assertThat(commands).containsExactly("findAndModify", "update");
    }

    @Test
    @DisplayName("the first use of a name creates its document with an upsert on the id alone, never with $expr")
    void firstUseCreatesTheDocumentWithoutExprInTheUpsert() {
        LockClient locks = counted();
        locks.lock("warm").tryAcquire().orElseThrow().release();
        commands.clear();
        upserts.clear();
        locks.lock("brand-new").tryAcquire().orElseThrow().release();
        assertThat(commands).containsExactly("findAndModify", "find", "update", "findAndModify", "update");
        assertThat(upserts).hasSize(1).allSatisfy(u -> assertThat(u).doesNotContain("$expr"));
    }

    @Test
    @DisplayName("a busy answer is the grant that matched nothing and one read of the holder")
    void busyAnswerCostsOneMoreCommand() {
        LockClient locks = counted();
        try (LockClient other = Latchkey.client(MongoLockBackend.builder(app)
                        .settings(MongoSettings.builder().database("roundtrips").build())
                        .build());
                LockHandle held = other.lock("busy").tryAcquire().orElseThrow()) {
            commands.clear();
            assertThat(locks.lock("busy").tryAcquire()).isEmpty();
            assertThat(commands).containsExactly("findAndModify", "find");
        }
    }

    @Test
    @DisplayName("closing the backend leaves the application's client open")
    void applicationClientStaysOpen() {
        counted().close();
        client = null;
        assertThat(app.getDatabase("roundtrips").runCommand(new org.bson.Document("ping", 1)).get("ok"))
                .isNotNull();
    }
}
