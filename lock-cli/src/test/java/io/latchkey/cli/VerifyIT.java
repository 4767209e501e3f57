package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code latchkey verify} runs the TCK against the URI's backend and prints one line per rule: on
 * {@code mem:} (which passes), on a provider that is only on {@code --classpath}, and on a flawed provider
 * whose failure must be printed with its reason.
 */
class VerifyIT {
    private static final Path TEST_CLASSES = Paths.get(
                    System.getProperty("latchkey.testClasses", "target/test-classes"))
            .toAbsolutePath();

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
    void memPassesEveryRuleItCanRunAndSaysWhyTheOthersAreSkipped() {
        LatchkeyJar.Result r = cli.run("verify", "--backend", "mem:");
        assertThat(r.exit()).as(r.toString()).isZero();
        List<String> rules = r.stdout()
                .lines()
                .filter(l -> l.matches("^(passed|FAILED|skipped) .*"))
                .toList();
        assertThat(rules).as(r.toString()).hasSizeGreaterThan(25);
        assertThat(rules).as(r.toString()).noneMatch(l -> l.startsWith("FAILED"));
        assertThat(r.stdout())
                .contains("passed   §4.1 exclusion: 16 threads")
                .contains("passed   §4.2 fencing")
                .containsPattern("skipped  .* -- this backend's TCK supplies no outage\\(\\) fault hook")
                .containsPattern("skipped  SESSION_BOUND.* -- backend does not claim SESSION_BOUND")
                .containsPattern("\\d+ passed, 0 failed, \\d+ skipped in ");
    }

    @Test
    void aProviderOnTheGivenClassPathIsVerified() {
        LatchkeyJar.Result r = cli.run(
                "verify",
                "--backend",
                "testmem:x",
                "--classpath",
                TEST_CLASSES.toString(),
                "--group",
                "fencing,inspection");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout())
                .contains("passed   §4.2 fencing: tokens strictly increase")
                .contains("passed   inspect: shows the holder's owner")
                .doesNotContain("§4.1");
    }

    @Test
    void aFlawedProviderFailsWithTheReason() throws Exception {
        Path report = temp.resolve("tck-report");
        LatchkeyJar.Result r = cli.run(
                "verify",
                "--backend",
                "blindmem:x",
                "--classpath",
                TEST_CLASSES.toString(),
                "--group",
                "inspection",
                "--report",
                report.toString());
        assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.NEGATIVE);
        assertThat(r.stdout())
                .as(r.toString())
                .containsPattern("FAILED   inspect: shows the holder's owner, token and a future expiry.* -- .+")
                .containsPattern("\\d+ passed, [1-9]\\d* failed")
                .contains("TCK report: " + report.resolve(UriBackendTck.class.getName() + ".md"));
        String page = java.nio.file.Files.readString(report.resolve(UriBackendTck.class.getName() + ".md"));
        assertThat(page)
                .contains("**FAILED**")
                .contains("| Backend | `blindmem")
                .containsPattern("- `inspect_[A-Za-z]+` \\(inspection\\): .+");
        assertThat(report.resolve("TEST-" + UriBackendTck.class.getName() + ".xml")).exists();
    }

    /**
     * Session mode pins one connection per held lock and the validation rule holds 60 names on one client:
     * with lock-jdbc's default pool of 10 that rule ran the pool dry. verify sizes the pool and says so.
     */
    @Test
    void postgresSessionModeGetsAPoolLargeEnoughForTheTckAndSaysSo() throws Exception {
        try (BenchCleanup cleanup = new BenchCleanup("VerifyIT postgres")) {
            String url;
            try {
                url = LocalPostgres.start(1, cleanup);
            } catch (LocalServers.NotStarted e) {
                if ("true".equalsIgnoreCase(System.getenv("LATCHKEY_REQUIRE_SERVERS"))) {
                    throw new AssertionError(
                            "PostgreSQL could not be started and LATCHKEY_REQUIRE_SERVERS=true: " + e.getMessage(), e);
                }
                org.junit.jupiter.api.Assumptions.abort("postgresql is not installed: " + e.getMessage());
                return;
            }
            LatchkeyJar.Result r = cli.run(
                    "verify",
                    "--backend",
                    url,
                    "-s",
                    "mode=session",
                    "--short-lease",
                    "2s",
                    "--group",
                    "validation,exclusion,inspection");
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.stdout())
                    .as(r.toString())
                    .contains("verify: session mode holds one connection per held lock and the TCK holds up to "
                            + SessionPool.peakHeldLocks() + " locks on one client, so each TCK client uses poolSize="
                            + (SessionPool.peakHeldLocks() + SessionPool.MARGIN))
                    .contains("passed   §4.8 validation")
                    .containsPattern("\\d+ passed, 0 failed");

            // a pool size the user chose is used as it is, without the note
            LatchkeyJar.Result own = cli.run(
                    "verify",
                    "--backend",
                    url,
                    "-s",
                    "mode=session",
                    "-s",
                    "poolSize=75",
                    "--short-lease",
                    "2s",
                    "--group",
                    "inspection");
            assertThat(own.exit()).as(own.toString()).isZero();
            assertThat(own.stdout()).as(own.toString()).doesNotContain("verify: session mode");
        }
    }

    @Test
    void withoutTheClassPathTheSchemeIsUnknown() {
        LatchkeyJar.Result r = cli.run("verify", "--backend", "testmem:x");
        assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.stderr()).contains("unknown scheme 'testmem:'");
    }
}
