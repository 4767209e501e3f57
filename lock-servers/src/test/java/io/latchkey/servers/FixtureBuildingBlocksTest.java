package io.latchkey.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FreePorts}, {@link Binaries}, {@link Endpoint} and {@link RunAsUser}: the small parts fixtures are built from. */
class FixtureBuildingBlocksTest {

    @TempDir
    Path directory;

    @Test
    void freePortsAreDistinctAndCanBeBoundOnLoopback() throws IOException {
        List<Integer> ports = FreePorts.find(8);

        assertThat(new HashSet<>(ports)).hasSize(8);
        List<ServerSocket> bound = new ArrayList<>();
        try {
            for (int port : ports) {
                ServerSocket socket = new ServerSocket();
                bound.add(socket);
                socket.bind(new InetSocketAddress(FreePorts.loopback(), port));
                assertThat(socket.getLocalPort()).isEqualTo(port);
            }
        } finally {
            for (ServerSocket socket : bound) {
                socket.close();
            }
        }
        assertThat(FreePorts.find()).isNotIn(ports); // recently given ports are not handed out again
        assertThatThrownBy(() -> FreePorts.find(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1 and " + FreePorts.MAX_PORTS_PER_CALL);
    }

    @Test
    void binariesAreFoundOnThePathAndInServerDirectories() throws IOException {
        Path tool = directory.resolve("latchkey-tool");
        Files.writeString(tool, "#!/bin/sh\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path notExecutable = directory.resolve("latchkey-data");
        Files.writeString(notExecutable, "data");
        Binaries binaries = Binaries.forPath("/nonexistent:" + directory);

        assertThat(binaries.locate("latchkey-tool")).hasValue(tool);
        assertThat(binaries.locate("latchkey-data")).isEmpty();
        assertThat(binaries.locate("latchkey-no-such-tool")).isEmpty();
        assertThat(binaries.searchedDirectories())
                .startsWith(Path.of("/nonexistent"), directory)
                .contains(Path.of("/usr/sbin"), Path.of("/usr/share/zookeeper/bin"));
        assertThat(Binaries.find("sh")).isPresent();
        assertThatThrownBy(() -> binaries.locate("/bin/sh")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void serverDirectoriesWithVersionsAreSearchedNewestFirst() {
        assertThat(Binaries.compareVersions("15", "9.6")).isPositive();
        assertThat(Binaries.compareVersions("9.6", "9.10")).isNegative();
        assertThat(Binaries.compareVersions("16", "16")).isZero();
    }

    @Test
    void endpointsAreParsedFromUrisAndHostPortPairs() {
        Endpoint redis = Endpoint.parseUri("redis://127.0.0.1:6390/0");
        assertThat(redis.host()).isEqualTo("127.0.0.1");
        assertThat(redis.port()).isEqualTo(6390);
        assertThat(redis.uri()).hasValue("redis://127.0.0.1:6390/0");

        Endpoint jdbc = Endpoint.parseUri("jdbc:postgresql://db.example:5433/latchkey?ssl=false");
        assertThat(jdbc.hostAndPort()).isEqualTo("db.example:5433");
        assertThat(jdbc.uri()).hasValue("jdbc:postgresql://db.example:5433/latchkey?ssl=false");

        Endpoint zk = Endpoint.parseHostPort("localhost:2181");
        assertThat(zk.host()).isEqualTo("localhost");
        assertThat(zk.uri()).isEmpty();
        assertThat(Endpoint.parseHostPort("[::1]:2379").hostAndPort()).isEqualTo("[::1]:2379");

        // an endpoint from the environment may carry a password: never in toString() or an error
        Endpoint secret = Endpoint.parseUri("jdbc:postgresql://app:s3cret@127.0.0.1:5432/db?password=s3cret2");
        assertThat(secret.toString()).doesNotContain("s3cret");
        assertThatThrownBy(() -> Endpoint.parseUri("redis://:s3cret@127.0.0.1"))
                .hasMessageContaining("explicit port")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> Endpoint.parseUri("redis://:s3 cret@127.0.0.1:1"))
                .hasMessageContaining("malformed")
                .hasMessageNotContaining("s3 cret");

        assertThatThrownBy(() -> Endpoint.parseUri("redis://127.0.0.1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("explicit port");
        assertThatThrownBy(() -> Endpoint.parseHostPort("localhost:99999"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1 and 65535");
        assertThatThrownBy(() -> Endpoint.of("127.0.0.1", List.of(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one port");
    }

    @Test
    void commandsAreWrappedToRunAsAnotherUserOnlyWhenRoot() {
        List<String> command = List.of("postgres", "-D", "/tmp/data dir");

        List<String> wrapped = RunAsUser.wrap("postgres", command);

        if (RunAsUser.isRoot()) {
            assertThat(wrapped).hasSizeGreaterThan(command.size());
            assertThat(String.join(" ", wrapped)).matches(".*(runuser -u postgres -- |su postgres ).*");
        } else {
            assertThat(wrapped).isEqualTo(command);
        }
        assertThat(RunAsUser.wrap(RunAsUser.currentUser(), command)).isEqualTo(command);
        assertThat(RunAsUser.shellQuote("/tmp/data dir")).isEqualTo("'/tmp/data dir'");
        assertThat(RunAsUser.shellQuote("it's")).isEqualTo("'it'\"'\"'s'");
    }
}
