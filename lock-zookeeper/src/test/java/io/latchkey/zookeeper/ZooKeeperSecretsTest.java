package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.tck.faults.ConnectProbe;
import io.latchkey.tck.faults.DeadEndpoints;
import io.latchkey.zookeeper.fixtures.ZooKeeperServer;
import io.latchkey.zookeeper.fixtures.ZooKeeperServers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 12 items 1 and 2 for ZooKeeper: no form of password in a {@code zookeeper://} URI ({@code user:pw@},
 * {@code :pw@}, {@code pw@}, percent-encoded) appears in {@code backend()}, in an exception message or cause,
 * or in anything logged at DEBUG (a separate JVM, every logger at DEBUG, against a real server). ZooKeeper's
 * digest authentication cannot fail at connect: the server accepts any digest credentials and judges them per
 * node ACL (see the module README), so a wrong password is not an error here.
 */
class ZooKeeperSecretsTest {
    private static final String SECRET = "S3cretPw";
    private static ZooKeeperServer server;
    private static int closedPort;

    @BeforeAll
    static void start() throws Exception {
        server = ZooKeeperServers.single();
        closedPort = DeadEndpoints.closedPort();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** A base path per identity (the creator ACL keeps identities out of each other's lock nodes). */
    private static String basePath(String userInfo) {
        return "/secrets-" + Integer.toHexString(userInfo.hashCode());
    }

    private static List<String> texts(Throwable t) {
        List<String> out = new ArrayList<>();
        for (Throwable c = t; c != null; c = c.getCause()) {
            out.add(String.valueOf(c));
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {"user:" + SECRET + "@", ":" + SECRET + "@", SECRET + "@", "user:S3cret%40Pw@", "S3cret%40Pw@"})
    @DisplayName("no password in backend(), messages or causes, connected or not")
    void noPasswordAnywhere(String userInfo) {
        String hostPort = server.connectString();
        Throwable parse = null;
        // each identity on a base path of its own: with the creator ACL one identity cannot lock another's names
        try (LockClient c = Latchkey.connect("zookeeper://" + userInfo + hostPort + "?basePath=" + basePath(userInfo))) {
            assertThat(c.backend())
                    .doesNotContain(SECRET)
                    .doesNotContain("S3cret%40Pw")
                    .doesNotContain("S3cret@Pw");
            assertThat(c.lock("secrets/x").tryAcquire()).isPresent();
        } catch (IllegalArgumentException e) {
            parse = e; // pw@ (no colon) is not a digest credential: rejected, without echoing it
        }
        if (parse != null) {
            assertThat(userInfo).doesNotContain(":");
            assertThat(texts(parse)).noneMatch(s -> s.contains("S3cret"));
        }
        Throwable unreachable =
                catchThrowable(() -> Latchkey.connect("zookeeper://" + userInfo + "127.0.0.1:" + closedPort));
        assertThat(unreachable).isNotNull();
        assertThat(texts(unreachable)).noneMatch(s -> s.contains("S3cret"));
        Throwable unknownSetting =
                catchThrowable(() -> Latchkey.connect("zookeeper://" + hostPort + "?password=" + SECRET));
        assertThat(texts(unknownSetting)).noneMatch(s -> s.contains("S3cret"));
        Throwable unknownInMap = catchThrowable(
                () -> Latchkey.connect(java.net.URI.create("zookeeper://" + hostPort), Map.of("password", SECRET)));
        assertThat(texts(unknownInMap)).noneMatch(s -> s.contains("S3cret"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"user:" + SECRET + "@", ":" + SECRET + "@", "user:S3cret%40Pw@"})
    @DisplayName("nothing logged at DEBUG (any library) carries the password, through connect, acquire, inspect, list")
    void noPasswordInDebugLogs(String userInfo) throws Exception {
        ConnectProbe.Result p = ConnectProbe.run(
                "debug", "zookeeper://" + userInfo + server.connectString() + "?basePath=" + basePath(userInfo), 0);
        assertThat(p.stdout()).anyMatch(l -> l.startsWith("CONNECTED ")).anyMatch(l -> l.startsWith("HELD "));
        assertThat(p.stderr()).as("DEBUG output").isNotEmpty();
        assertThat(p.stdout()).noneMatch(l -> l.contains("S3cret"));
        assertThat(p.stderr()).noneMatch(l -> l.contains("S3cret"));
    }
}
