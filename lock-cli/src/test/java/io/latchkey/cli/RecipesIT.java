package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code latchkey exec --leader} and {@code latchkey distribute} as real processes on one store (the embedded
 * default of one home directory), killed with SIGKILL as a crashed host would be.
 */
class RecipesIT {
    private static final Duration LONG = Duration.ofSeconds(90);
    private static final String LEAD = "echo \"leading $LATCHKEY_TOKEN\"; while :; do sleep 0.1; done";
    private static final String WORK = "echo \"run-$LATCHKEY_ITEM\"; while :; do sleep 0.1; done";

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

    private static LatchkeyJar.Running leader(String name) {
        return cli.start("exec", "--leader", "--verbose", "--name", name, "--lease", "2s", "--", "sh", "-c", LEAD);
    }

    @Test
    void onlyOneLeaderRunsTheCommandAndAKilledLeaderIsReplacedWithAGreaterToken() {
        LatchkeyJar.Running a = leader("ldr");
        LatchkeyJar.Running b = leader("ldr");
        await().atMost(LONG)
                .until(() -> a.stdout().contains("leading") || b.stdout().contains("leading"));
        LatchkeyJar.Running first = a.stdout().contains("leading") ? a : b;
        LatchkeyJar.Running second = first == a ? b : a;
        await().atMost(Duration.ofSeconds(5)).until(() -> second.stderr().contains("in the election"));
        assertThat(second.stdout()).as("two leaders at once").doesNotContain("leading");
        long firstToken = token(first.stdout());
        first.killTree();
        await().atMost(LONG).until(() -> second.stdout().contains("leading"));
        assertThat(token(second.stdout())).isGreaterThan(firstToken);
        second.signal("TERM");
        LatchkeyJar.Result r = second.await(LONG);
        assertThat(r.exit()).as(r.toString()).isEqualTo(128 + 15);
        assertThat(cli.run("inspect", "ldr").exit()).as("released on SIGTERM").isEqualTo(ExitCodes.NEGATIVE);
    }

    @Test
    void aForcedReleaseStopsTheLeadersCommandAndItIsElectedAgain() {
        LatchkeyJar.Running a = leader("ldr-forced");
        await().atMost(LONG).until(() -> a.stdout().contains("leading"));
        long firstToken = token(a.stdout());
        assertThat(cli.run("release", "--force", "ldr-forced").exit()).isZero();
        await().atMost(LONG).until(() -> a.stderr().contains("lost the leadership of 'ldr-forced'"));
        await().atMost(LONG).until(() -> a.stdout().split("leading", -1).length > 2);
        assertThat(token(a.stdout())).isGreaterThan(firstToken);
        a.signal("TERM");
        assertThat(a.await(LONG).exit()).isEqualTo(128 + 15);
    }

    @Test
    void distributeSplitsTheItemsAndTakesOverAKilledInstancesItems() {
        List<String> args = List.of(
                "distribute",
                "--verbose",
                "-n",
                "dist",
                "--items",
                "a,b,c,d",
                "--cap",
                "4",
                "--lease",
                "2s",
                "--",
                "sh",
                "-c",
                WORK);
        LatchkeyJar.Running one = cli.start(args.toArray(String[]::new));
        await().atMost(LONG).until(() -> items(one.stdout()).size() == 4);
        LatchkeyJar.Running two = cli.start(args.toArray(String[]::new));
        await().atMost(LONG).until(() -> !items(two.stdout()).isEmpty());
        await().atMost(LONG).until(() -> one.stderr().contains("gave up item"));
        List<String> twoRan = items(two.stdout());
        int before = one.stdout().length();
        two.killTree();
        await().atMost(LONG).until(() -> items(one.stdout().substring(before)).containsAll(twoRan));
        one.signal("TERM");
        LatchkeyJar.Result r = one.await(LONG);
        assertThat(r.exit()).as(r.toString()).isEqualTo(128 + 15);
        assertThat(cli.run("list", "dist/items/").stdout())
                .as("items released on SIGTERM")
                .doesNotContain("dist/items/a");
    }

    private static long token(String stdout) {
        Matcher m = Pattern.compile("leading (\\d+)").matcher(stdout);
        long last = -1;
        while (m.find()) {
            last = Long.parseLong(m.group(1));
        }
        assertThat(last).as("a leading line in: " + stdout).isPositive();
        return last;
    }

    private static List<String> items(String stdout) {
        return Pattern.compile("run-(\\w+)")
                .matcher(stdout)
                .results()
                .map(m -> m.group(1))
                .distinct()
                .toList();
    }
}
