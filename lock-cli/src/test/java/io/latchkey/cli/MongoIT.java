package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code latchkey exec -b mongodb://...}: the CLI jar carries lock-mongodb, finds it by the scheme, runs the command
 * under the lock with its token, and lists nothing afterwards. The server is mongo-java-server in this JVM (no MongoDB
 * package exists for this platform; lock-mongodb's README says what that proves).
 */
class MongoIT {
    @TempDir
    static Path temp;

    static LatchkeyJar cli;
    static MongoServer server;
    static String base;

    @BeforeAll
    static void start() {
        server = new MongoServer(new MemoryBackend());
        base = "mongodb://127.0.0.1:" + server.bind().getPort() + "/"; // a database per test: they run in parallel
        cli = new LatchkeyJar(temp);
    }

    @AfterAll
    static void stop() {
        cli.close();
        server.shutdownNow();
    }

    @Test
    void execRunsTheCommandUnderAMongoDbLockAndReleasesIt() {
        String uri = base + "exec";
        LatchkeyJar.Result first = cli.run("exec", "-b", uri, "--name", "nightly", "--", "sh", "-c", "echo token=$LATCHKEY_TOKEN");
        assertThat(first.exit()).as(first.toString()).isZero();
        assertThat(first.stdout()).contains("token=1");
        LatchkeyJar.Result second =
                cli.run("exec", "-b", uri, "--name", "nightly", "--", "sh", "-c", "echo token=$LATCHKEY_TOKEN");
        assertThat(second.stdout()).as("the token rises across release").contains("token=2");
        LatchkeyJar.Result list = cli.run("list", "-b", uri, "--json");
        assertThat(list.exit()).as(list.toString()).isZero();
        assertThat(list.stdout().trim()).isEqualTo("[]");
    }

    @Test
    void aHeldLockMakesExecWaitThenGiveUpWithItsExitStatus() {
        String uri = base + "held";
        LatchkeyJar.Running holder = cli.start("exec", "-b", uri, "--name", "held", "--", "sleep", "20");
        try {
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> cli.run("list", "-b", uri).stdout().contains("held"));
            LatchkeyJar.Result busy = cli.run("exec", "-b", uri, "--name", "held", "--wait", "1s", "--", "true");
            assertThat(busy.exit()).as(busy.toString()).isNotZero();
            assertThat(busy.stderr()).contains("held");
        } finally {
            holder.killTree();
        }
    }
}
