package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signals sent to {@code latchkey exec} reach the command and the lock is released once it has exited;
 * a lock lost while the command runs (a forced release from another process) stops the command: SIGTERM,
 * then SIGKILL after the grace period, and exit status 79.
 */
class SignalsAndLossIT {
    private static final String TRAP_TERM =
            "trap 'echo got-TERM; exit 42' TERM; echo started; while :; do sleep 0.1; done";
    private static final String TRAP_INT =
            "trap 'echo got-INT; exit 43' INT; echo started; while :; do sleep 0.1; done";

    // one home directory, hence one embedded store and server, per class; tests use distinct lock names
    @TempDir
    static Path temp;

    static LatchkeyJar cli;

    @BeforeAll
    static void start() {
        cli = new LatchkeyJar(temp);
    }

    @AfterAll
    static void stop() {
        cli.close();
    }

    @Test
    void sigtermIsForwardedAndTheLockReleasedAfterTheCommandExits() {
        LatchkeyJar.Running run = cli.start("exec", "--name", "sig-term", "--", "sh", "-c", TRAP_TERM);
        await().atMost(Duration.ofSeconds(60)).until(() -> run.stdout().contains("started"));
        run.signal("TERM");
        LatchkeyJar.Result r = run.await(Duration.ofSeconds(60));
        assertThat(r.stdout()).as(r.toString()).contains("got-TERM");
        assertThat(r.exit()).as("the command's own status: " + r).isEqualTo(42);
        assertThat(cli.run("inspect", "sig-term").exit()).as("released").isEqualTo(ExitCodes.NEGATIVE);
    }

    @Test
    void sigintIsForwarded() {
        LatchkeyJar.Running run = cli.start("exec", "--name", "sig-int", "--", "sh", "-c", TRAP_INT);
        await().atMost(Duration.ofSeconds(60)).until(() -> run.stdout().contains("started"));
        run.signal("INT");
        LatchkeyJar.Result r = run.await(Duration.ofSeconds(60));
        assertThat(r.stdout()).as(r.toString()).contains("got-INT");
        assertThat(r.exit()).as(r.toString()).isEqualTo(43);
        assertThat(cli.run("inspect", "sig-int").exit()).as("released").isEqualTo(ExitCodes.NEGATIVE);
    }

    @Test
    void aSignalWhileWaitingStopsTheWaitAndRunsNothing() {
        LatchkeyJar.Running holder = cli.start("exec", "--name", "queue", "--", "sh", "-c", "echo started; sleep 60");
        await().atMost(Duration.ofSeconds(60)).until(() -> holder.stdout().contains("started"));
        Path marker = temp.resolve("waiter-ran");
        LatchkeyJar.Running waiter =
                cli.start("exec", "--verbose", "--name", "queue", "--", "touch", marker.toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> waiter.stderr().contains("waiting for lock 'queue'"));
        waiter.signal("TERM");
        LatchkeyJar.Result r = waiter.await(Duration.ofSeconds(60));
        assertThat(r.exit()).as(r.toString()).isEqualTo(128 + 15);
        assertThat(marker).doesNotExist();
        LatchkeyJar.Result inspect = cli.run("inspect", "--json", "queue");
        assertThat(inspect.stdout()).as("the holder still holds it").contains("\"held\":true");
        holder.signal("TERM");
        holder.await(Duration.ofSeconds(60));
    }

    @Test
    void aForcedReleaseStopsTheCommandWithSigtermAndExits79() {
        LatchkeyJar.Running run = cli.start("exec", "--name", "lossy", "--lease", "3s", "--", "sh", "-c", TRAP_TERM);
        await().atMost(Duration.ofSeconds(60)).until(() -> run.stdout().contains("started"));
        LatchkeyJar.Result release = cli.run("release", "--force", "lossy");
        assertThat(release.exit()).as(release.toString()).isZero();
        assertThat(release.stdout())
                .contains("released 'lossy' (was held by")
                .contains("; the holder learns of it at its next renewal");
        LatchkeyJar.Result r = run.await(Duration.ofSeconds(60));
        assertThat(r.stdout()).as(r.toString()).contains("got-TERM");
        assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.LOCK_LOST);
        assertThat(r.stderr())
                .contains("lost lock 'lossy' (RELEASED_BY_ADMIN")
                .contains("was lost (RELEASED_BY_ADMIN)");
    }

    @Test
    void aCommandThatIgnoresSigtermIsKilledAfterTheGracePeriod() throws Exception {
        Path pidFile = temp.resolve("child.pid");
        LatchkeyJar.Running run = cli.start(
                "exec",
                "--name",
                "stubborn",
                "--lease",
                "3s",
                "--grace",
                "1s",
                "--",
                "sh",
                "-c",
                "trap '' TERM; echo $$ > '" + pidFile + "'; echo started; while :; do sleep 0.1; done");
        await().atMost(Duration.ofSeconds(60)).until(() -> run.stdout().contains("started"));
        long childPid = Long.parseLong(Files.readString(pidFile).trim());
        assertThat(cli.run("release", "--force", "--json", "stubborn").stdout()).contains("\"released\":true");
        LatchkeyJar.Result r = run.await(Duration.ofSeconds(60));
        assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.LOCK_LOST);
        assertThat(r.stderr()).contains("SIGKILL").contains("exited with status 137");
        assertThat(ProcessHandle.of(childPid).map(ProcessHandle::isAlive).orElse(false))
                .as("the command is gone")
                .isFalse();
    }
}
