package io.latchkey.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The pieces the recipes share: the one recursive delete, setup commands, and the etcd member command lines. */
@Timeout(30)
class RecipeBuildingBlocksTest {

    @TempDir
    Path temp;

    @Test
    void deleteRecursivelyRemovesATreeButNeverFollowsALink() throws IOException {
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("keep.txt"), "keep");
        Path root = Files.createDirectories(temp.resolve("root/a/b"));
        Files.writeString(root.resolve("file.txt"), "x");
        Files.createSymbolicLink(temp.resolve("root/link"), outside);

        Directories.deleteRecursively(temp.resolve("root"));
        Directories.deleteRecursively(temp.resolve("root")); // a missing path is not an error
        Directories.deleteQuietly(temp.resolve("never-existed"));

        assertThat(temp.resolve("root")).doesNotExist();
        assertThat(outside.resolve("keep.txt")).exists();
    }

    @Test
    void aSetupCommandThatFailsIsOneLineWithItsLastOutput() {
        List<Process> started = new ArrayList<>();

        assertThatThrownBy(() -> SetupCommand.run(
                        "initdb",
                        List.of("sh", "-c", "echo starting; echo 'bad locale'; echo; echo '  '; exit 3"),
                        temp.resolve("setup.log"),
                        Duration.ofSeconds(10),
                        started::add))
                .isInstanceOf(IOException.class)
                .hasMessage("initdb failed with exit code 3: starting | bad locale"); // blank lines skipped
        assertThat(started).hasSize(1);
    }

    @Test
    void aSetupCommandThatHangsIsKilledAtItsTimeout() {
        List<Process> started = new ArrayList<>();

        assertThatThrownBy(() -> SetupCommand.run(
                        "slow", List.of("sleep", "30"), temp.resolve("slow.log"), Duration.ofMillis(300), started::add))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("slow did not finish within");
        assertThat(started.get(0).isAlive()).isFalse();
    }

    @Test
    void etcdMembersKnowEachOtherAndServeTlsWhenAsked() {
        List<ServerProcessBuilder> members = EtcdServer.members(
                Path.of("/usr/bin/etcd"),
                temp,
                List.of(1, 2, 3, 4, 5, 6),
                new EtcdServer.Tls(temp.resolve("server.pem"), temp.resolve("server.key"), temp.resolve("ca.pem")),
                List.of("--auth-token-ttl", "1"));

        assertThat(members).hasSize(3);
        List<String> second = members.get(1).command;
        assertThat(second)
                .containsSequence("--name", "m1")
                .containsSequence("--listen-client-urls", "https://127.0.0.1:3")
                .containsSequence(
                        "--initial-cluster", "m0=http://127.0.0.1:2,m1=http://127.0.0.1:4,m2=http://127.0.0.1:6")
                .containsSequence(
                        "--client-cert-auth",
                        "--trusted-ca-file",
                        temp.resolve("ca.pem").toString())
                .endsWith("--auth-token-ttl", "1");
        assertThat(members.get(1).deleteOnClose).containsExactly(temp.resolve("m1"));
        assertThatThrownBy(() -> EtcdServer.members(Path.of("etcd"), temp, List.of(1), null, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two ports each");
    }
}
