package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * JDBC drivers in the runnable jar: a {@code jdbc:mysql:} URL works with the bundled MariaDB driver (against
 * a real MariaDB server), and a URL whose driver is missing (a copy of latchkey.jar without PostgreSQL's
 * driver) is a usage error in one line, exit 64, naming the driver to add, and no stack trace.
 */
class JdbcDriversIT {
    @TempDir
    static Path temp;

    static LatchkeyJar cli;
    static LatchkeyJar withoutPgjdbc;
    static BenchCleanup cleanup;
    static String mysqlUrl;

    @BeforeAll
    static void start() throws Exception {
        cli = new LatchkeyJar(Files.createDirectories(temp.resolve("full")));
        Path jar = withoutDriver(LatchkeyJar.JAR, temp.resolve("latchkey-without-pgjdbc.jar"));
        withoutPgjdbc = new LatchkeyJar(Files.createDirectories(temp.resolve("without-pgjdbc")), jar);
        cleanup = new BenchCleanup("JdbcDriversIT");
        try {
            String mariadb = LocalMariaDb.start(1, cleanup);
            mysqlUrl = mariadb.replace("jdbc:mariadb:", "jdbc:mysql:");
        } catch (LocalServers.NotStarted e) {
            if ("true".equalsIgnoreCase(System.getenv("LATCHKEY_REQUIRE_SERVERS"))) {
                throw new AssertionError(
                        "MariaDB could not be started and LATCHKEY_REQUIRE_SERVERS=true: " + e.getMessage(), e);
            }
        }
    }

    @AfterAll
    static void stop() {
        cli.close();
        withoutPgjdbc.close();
        if (cleanup != null) {
            cleanup.close();
        }
    }

    @Test
    void aMysqlUrlWorksThroughTheBundledMariaDbDriver() {
        org.junit.jupiter.api.Assumptions.assumeTrue(mysqlUrl != null, "mariadb-server is not installed");
        LatchkeyJar.Result exec = cli.run(
                "exec",
                "--backend",
                mysqlUrl,
                "--name",
                "mysql-scheme",
                "-v",
                "--",
                "sh",
                "-c",
                "echo token=$LATCHKEY_TOKEN");
        assertThat(exec.exit()).as(exec.toString()).isZero();
        assertThat(exec.stdout()).as(exec.toString()).containsPattern("token=\\d+");
        assertThat(exec.stderr())
                .as(exec.toString())
                .contains("acquired lock 'mysql-scheme'")
                .contains("jdbc:mysql:");

        LatchkeyJar.Running holder =
                cli.start("exec", "--backend", mysqlUrl, "--name", "mysql-held", "--", "sleep", "60");
        try {
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(60))
                    .untilAsserted(() -> {
                        LatchkeyJar.Result inspect = cli.run("inspect", "--backend", mysqlUrl, "--json", "mysql-held");
                        assertThat(inspect.exit()).as(inspect.toString()).isZero();
                        assertThat(inspect.stdout()).contains("\"held\":true");
                    });
            LatchkeyJar.Result list = cli.run("list", "--backend", mysqlUrl, "--prefix", "mysql-");
            assertThat(list.exit()).as(list.toString()).isZero();
            assertThat(list.stdout()).as(list.toString()).contains("mysql-held");
            LatchkeyJar.Result busy =
                    cli.run("exec", "--backend", mysqlUrl, "--name", "mysql-held", "--no-wait", "--", "true");
            assertThat(busy.exit()).as(busy.toString()).isEqualTo(ExitCodes.NOT_ACQUIRED);
        } finally {
            holder.process.destroy();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"exec", "list", "verify"})
    void aMissingDriverIsOneLineAndExit64(String command) {
        LatchkeyJar.Result r = withoutPgjdbc.run(args(command));
        assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.stderr().lines()).as(r.toString()).hasSize(1);
        assertThat(r.stderr())
                .as(r.toString())
                .startsWith("latchkey " + command + ": ")
                .doesNotContain("\tat ", "Exception", "internal error", "s3cret");
        assertThat(r.stdout()).as(r.toString()).isEmpty();
    }

    /** The backend's message names the Maven coordinates of the driver (lock-jdbc's part of issue 12, item 8). */
    @Test
    void aMissingDriverIsNamedByItsMavenCoordinates() {
        LatchkeyJar.Result r = withoutPgjdbc.run(args("exec"));
        assertThat(r.stderr()).as(r.toString()).contains("org.postgresql:postgresql");
    }

    private static String[] args(String command) {
        String uri = "jdbc:postgresql://127.0.0.1:9/db?user=u&password=s3cret";
        return switch (command) {
            case "exec" -> new String[] {"exec", "--backend", uri, "--name", "n", "--", "true"};
            case "list" -> new String[] {"list", "--backend", uri};
            default -> new String[] {"verify", "--backend", uri, "--group", "fencing"};
        };
    }

    /** A copy of the jar without PostgreSQL's driver: its classes, its Maven metadata and its service entry. */
    static Path withoutDriver(Path jar, Path copy) throws IOException {
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar));
                ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(copy))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                String name = e.getName();
                if (name.startsWith("org/postgresql/") || name.startsWith("META-INF/maven/org.postgresql/")) {
                    continue;
                }
                out.putNextEntry(new ZipEntry(name));
                if (name.equals("META-INF/services/java.sql.Driver")) {
                    String services = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                            .lines()
                            .filter(l -> !l.trim().equals("org.postgresql.Driver"))
                            .collect(Collectors.joining("\n", "", "\n"));
                    out.write(services.getBytes(StandardCharsets.UTF_8));
                } else {
                    copy(in, out);
                }
                out.closeEntry();
            }
        }
        return copy;
    }

    private static void copy(InputStream in, OutputStream out) throws IOException {
        in.transferTo(out);
    }
}
