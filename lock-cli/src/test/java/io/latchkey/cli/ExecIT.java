package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code latchkey exec} on the embedded default (an H2 file in a private home directory, shared by the
 * processes of one test): real processes exclude each other, exit statuses are the command's or the
 * documented ones, and the command sees its lock's name and fencing token.
 */
class ExecIT {
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

    /**
     * Three processes run the same job at once. The job claims a directory with mkdir (atomic: it fails if
     * another job is inside) — an overlap detector across processes — and logs its token on entry and exit.
     */
    @Test
    void threeProcessesExcludeEachOtherAndSeeIncreasingTokens() throws IOException {
        Path inside = temp.resolve("inside");
        Path log = temp.resolve("job.log");
        String job = "if ! mkdir '" + inside + "'; then echo OVERLAP >> '" + log + "'; fi; "
                + "echo \"start $LATCHKEY_TOKEN\" >> '" + log + "'; sleep 1; "
                + "echo \"end $LATCHKEY_TOKEN\" >> '" + log + "'; rmdir '" + inside + "'";
        List<LatchkeyJar.Running> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            runs.add(cli.start("exec", "--name", "nightly-report", "--wait", "60s", "--", "sh", "-c", job));
        }
        for (LatchkeyJar.Running run : runs) {
            LatchkeyJar.Result r = run.await(Duration.ofMinutes(2));
            assertThat(r.exit()).as(r.toString()).isZero();
        }
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).as("job log").doesNotContain("OVERLAP").hasSize(6);
        long previous = 0;
        for (int i = 0; i < 6; i += 2) {
            String[] start = lines.get(i).split(" ");
            String[] end = lines.get(i + 1).split(" ");
            assertThat(start[0]).as(lines.toString()).isEqualTo("start");
            assertThat(end[0]).as(lines.toString()).isEqualTo("end");
            assertThat(end[1]).as("the same run ends what it started: " + lines).isEqualTo(start[1]);
            long token = Long.parseLong(start[1]);
            assertThat(token)
                    .as("fencing tokens increase run after run: " + lines)
                    .isGreaterThan(previous);
            previous = token;
        }
        assertThat(cli.run("list", "--json").stdout().trim()).isEqualTo("[]");
        assertThat(cli.home.resolve(".latchkey/locks.mv.db"))
                .as("the embedded default is an H2 file in the home directory")
                .isRegularFile();
    }

    @Test
    void notAcquiredExitsWith75OrTheConflictCodeAndRunsNothing() {
        LatchkeyJar.Running holder = startHolder("busy", "--lease", "30s");
        Path marker = temp.resolve("ran");
        LatchkeyJar.Result noWait = cli.run("exec", "--name", "busy", "--no-wait", "--", "touch", marker.toString());
        assertThat(noWait.exit()).as(noWait.toString()).isEqualTo(ExitCodes.NOT_ACQUIRED);
        assertThat(noWait.stderr()).contains("lock 'busy' not acquired (--no-wait): held by");

        LatchkeyJar.Result custom =
                cli.run("exec", "--name", "busy", "--no-wait", "-E", "3", "--", "touch", marker.toString());
        assertThat(custom.exit()).as(custom.toString()).isEqualTo(3);

        LatchkeyJar.Result quiet =
                cli.run("exec", "--name", "busy", "--wait", "1s", "--quiet", "--", "touch", marker.toString());
        assertThat(quiet.exit()).as(quiet.toString()).isEqualTo(ExitCodes.NOT_ACQUIRED);
        assertThat(quiet.stderr()).as(quiet.toString()).isEmpty();

        LatchkeyJar.Result waited =
                cli.run("exec", "--name", "busy", "--wait", "1500ms", "--", "touch", marker.toString());
        assertThat(waited.exit()).as(waited.toString()).isEqualTo(ExitCodes.NOT_ACQUIRED);
        assertThat(waited.stderr()).contains("not acquired within 1.5s");
        assertThat(marker).as("no command ran without the lock").doesNotExist();
        holder.signal("TERM");
        holder.await(Duration.ofSeconds(60));
    }

    @Test
    void exitStatusIsTheCommandsOrTheShellConvention() {
        assertThat(cli.run("exec", "--name", "s", "--", "sh", "-c", "exit 7").exit())
                .isEqualTo(7);
        assertThat(cli.run("exec", "--name", "s", "--", "true").exit()).isZero();
        LatchkeyJar.Result killed = cli.run("exec", "--name", "s", "--", "sh", "-c", "kill -KILL $$");
        assertThat(killed.exit()).as(killed.toString()).isEqualTo(128 + 9);
        LatchkeyJar.Result missing = cli.run("exec", "--name", "s", "--", "/no/such/command");
        assertThat(missing.exit()).as(missing.toString()).isEqualTo(ExitCodes.COMMAND_NOT_FOUND);
        assertThat(missing.stderr()).contains("command not found; the lock was released");
        LatchkeyJar.Result notExecutable = cli.run("exec", "--name", "s", "--", temp.toString());
        assertThat(notExecutable.exit()).as(notExecutable.toString()).isEqualTo(ExitCodes.CANNOT_EXECUTE);
        LatchkeyJar.Result inspect = cli.run("inspect", "s");
        assertThat(inspect.exit())
                .as("nothing held after any of them: " + inspect)
                .isEqualTo(ExitCodes.NEGATIVE);
    }

    @Test
    void theCommandSeesItsLockNameAndTheTokenTheStoreHolds() {
        LatchkeyJar.Running run = cli.start(
                "exec",
                "--name",
                "env check/ü",
                "--",
                "sh",
                "-c",
                "echo \"name=$LATCHKEY_NAME token=$LATCHKEY_TOKEN\"; echo started; sleep 30");
        await().atMost(Duration.ofSeconds(60)).until(() -> run.stdout().contains("started"));
        Matcher m = Pattern.compile("name=(.*) token=(\\d+)").matcher(run.stdout());
        assertThat(m.find()).as(run.stdout()).isTrue();
        assertThat(m.group(1)).isEqualTo("env check/ü");
        LatchkeyJar.Result inspect = cli.run("inspect", "--json", "env check/ü");
        assertThat(inspect.exit()).as(inspect.toString()).isZero();
        assertThat(inspect.stdout())
                .contains("\"fencingToken\":" + m.group(2) + ",")
                .contains("\"held\":true");
        run.signal("TERM");
        assertThat(run.await(Duration.ofSeconds(60)).exit()).isEqualTo(128 + 15);
    }

    /** Starts {@code exec} holding NAME with a long-running command and waits until the command runs. */
    private LatchkeyJar.Running startHolder(String name, String... options) {
        List<String> args = new ArrayList<>(List.of("exec", "--name", name));
        args.addAll(List.of(options));
        args.addAll(List.of("--", "sh", "-c", "echo started; sleep 60"));
        LatchkeyJar.Running holder = cli.start(args.toArray(String[]::new));
        await().atMost(Duration.ofSeconds(60)).until(() -> holder.stdout().contains("started"));
        return holder;
    }
}
