package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.servers.Binaries;
import io.latchkey.servers.ReadinessCheck;
import io.latchkey.servers.ServerProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * Issue 12, item 1: no password is ever shown, for every scheme and every form the URI grammar accepts
 * ({@code user:pw@}, {@code :pw@}, {@code pw@}, {@code ?password=} (H2: {@code ;PASSWORD=}), a percent-encoded
 * {@code p%40ss}, and the {@code password} setting). For each row the password, a token unique to the row,
 * must appear nowhere:
 * <ul>
 *   <li>in {@link LockClient#backend()} or in any exception's message, cause chain or suppressed exceptions
 *       ({@code Latchkey.connect} and a first {@code tryAcquire}, in this JVM);</li>
 *   <li>in the stdout or stderr of {@code exec} (default, {@code -v}, {@code -q}), {@code inspect} and
 *       {@code list}, run in this JVM through the same picocli set-up as the jar; against the real servers
 *       also {@code inspect} and {@code list} in the other output format, {@code release --force} and
 *       {@code verify};</li>
 *   <li>in SLF4J output at DEBUG: this class runs in its own Failsafe execution whose simple logger is at
 *       DEBUG and writes to a file, read at the end ({@link #noPasswordInTheDebugLogAtAll()} and every row);</li>
 *   <li>in the real jar's stdout and stderr for {@code exec -v} with
 *       {@code JAVA_TOOL_OPTIONS=-Dorg.slf4j.simpleLogger.defaultLogLevel=debug} (one form per scheme:
 *       {@code pw@}, the form of the original report, and the percent-encoded one).</li>
 * </ul>
 * Most rows point at closed ports (fast); a real redis-server with {@code requirepass} and a real PostgreSQL
 * with scram-sha-256 give the wrong-password rows and one right-password row each (whose {@code backend()}
 * and {@code exec -v} output a successful connection shows). Every closed-port row passes
 * {@code connectTimeout=1s}, the setting every scheme accepts; the real servers answer at once and need none.
 * Rows run concurrently (the table is I/O-bound).
 */
@Execution(ExecutionMode.CONCURRENT)
class SecretsIT {
    static final String DEBUG_LOG = "latchkey.secretsIt.log";
    static final List<String> SCHEMES = List.of(
            "redis",
            "rediss",
            "redlock",
            "jdbc:postgresql",
            "jdbc:mariadb",
            "jdbc:mysql",
            "jdbc:h2",
            "zookeeper",
            "etcd",
            "etcds");
    static final List<String> FORMS = List.of("user:pw@", ":pw@", "pw@", "?password=", "p%40ss", "setting");
    static final List<Row> ROWS = new ArrayList<>();

    @TempDir
    static Path temp;

    static LatchkeyJar cli;
    static ServerProcess redis;
    static BenchCleanup cleanup;

    /** One way of giving a password: the URI, extra settings, and the token that must never be shown. */
    record Row(String label, String uri, Map<String, String> settings, String secret) {
        /** A row against a real server (which can get past connecting), as opposed to a closed port. */
        boolean realServer() {
            return label.contains("real ");
        }

        @Override
        public String toString() {
            return label;
        }

        List<String> settingArgs() {
            List<String> args = new ArrayList<>();
            settings.forEach((k, v) -> args.addAll(List.of("-s", k + "=" + v)));
            return args;
        }
    }

    @BeforeAll
    static void start() throws Exception {
        assertThat(System.getProperty(DEBUG_LOG))
                .as("SecretsIT runs in the 'secrets' Failsafe execution (DEBUG log)")
                .isNotNull();
        CliLogging.configure();
        cli = new LatchkeyJar(temp);
        cleanup = new BenchCleanup("SecretsIT");
        boolean required = "true".equalsIgnoreCase(System.getenv("LATCHKEY_REQUIRE_SERVERS"));

        int closed = closedPort();
        String hosts = "127.0.0.1:" + closed;
        for (String scheme : SCHEMES) {
            String h = scheme.equals("redlock")
                    ? hosts + ",127.0.0.1:" + closedPort() + ",127.0.0.1:" + closedPort()
                    : hosts;
            for (String form : FORMS) {
                ROWS.add(closedPortRow(scheme, form, h));
            }
        }
        // a real Redis with requirepass: wrong passwords in every form, and the right one in pw@ form
        Optional<Path> redisServer = Binaries.find("redis-server");
        if (redisServer.isPresent()) {
            int port = closedPort();
            String right = token("right");
            // from a file: the fixture logs its command line at DEBUG, and this test reads that log
            Path conf = Files.writeString(temp.resolve("redis.conf"), "requirepass " + right + "\n");
            redis = ServerProcess.builder()
                    .name("redis-server with requirepass for SecretsIT")
                    .command(
                            redisServer.get().toString(),
                            conf.toString(),
                            "--port",
                            Integer.toString(port),
                            "--bind",
                            "127.0.0.1",
                            "--save",
                            "",
                            "--appendonly",
                            "no")
                    .readiness(ReadinessCheck.tcpPortOpen(port))
                    .start();
            String h = "127.0.0.1:" + port;
            for (String form : List.of("user:pw@", ":pw@", "pw@", "?password=", "p%40ss")) {
                Row r = closedPortRow("redis", form, h);
                ROWS.add(new Row(
                        "wrong password, real redis-server, " + form,
                        r.uri().replace("user:", "default:"),
                        withoutTimeout(r.settings()),
                        r.secret()));
            }
            ROWS.add(new Row("right password, real redis-server, pw@", "redis://" + right + "@" + h, Map.of(), right));
        } else if (required) {
            throw new AssertionError(
                    "redis-server is not installed (Debian: redis-server) and LATCHKEY_REQUIRE_SERVERS=true");
        }
        // a real PostgreSQL that asks role lk for its password (scram-sha-256)
        try {
            String url = LocalPostgres.start(1, cleanup);
            String right = token("right");
            String base = passwordProtected(url, right);
            String wrong = token("wrong");
            String host =
                    base.substring("jdbc:postgresql://".length(), base.indexOf('/', "jdbc:postgresql://".length()));
            ROWS.add(new Row(
                    "wrong password, real PostgreSQL, ?password=",
                    base + "?user=lk&password=" + wrong,
                    Map.of(),
                    wrong));
            String wrong2 = token("wrong");
            ROWS.add(new Row(
                    "wrong password, real PostgreSQL, setting",
                    base,
                    Map.of("user", "lk", "password", wrong2),
                    wrong2));
            String wrong3 = token("wrong");
            ROWS.add(new Row(
                    "wrong password, real PostgreSQL, p%40ss",
                    base + "?user=lk&password=p%40ss" + wrong3, Map.of(), wrong3));
            String wrong4 = token("wrong");
            ROWS.add(new Row(
                    "wrong password, real PostgreSQL, user:pw@",
                    "jdbc:postgresql://lk:" + wrong4 + "@" + host + "/postgres",
                    Map.of(),
                    wrong4));
            ROWS.add(new Row(
                    "right password, real PostgreSQL, ?password=",
                    base + "?user=lk&password=" + right,
                    Map.of(),
                    right));
        } catch (LocalServers.NotStarted e) {
            if (required) {
                throw new AssertionError(
                        "PostgreSQL could not be started and LATCHKEY_REQUIRE_SERVERS=true: " + e.getMessage(), e);
            }
        }
    }

    @AfterAll
    static void stop() {
        if (cli != null) {
            cli.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (cleanup != null) {
            cleanup.close();
        }
    }

    static Stream<Row> rows() {
        return ROWS.stream();
    }

    static Stream<Row> jarRows() {
        return ROWS.stream().filter(r -> r.label().endsWith(" pw@") || r.label().endsWith(" p%40ss"));
    }

    /** backend(), exception messages and cause chains, in this JVM. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void noPasswordInBackendOrExceptions(Row row) {
        List<String> shown = new ArrayList<>();
        try (LockClient client = Latchkey.connect(row.uri(), row.settings())) {
            shown.add("backend(): " + client.backend());
            shown.add("toString(): " + client);
            try {
                client.lock("secrets-probe").tryAcquire().ifPresent(h -> h.release());
            } catch (RuntimeException e) {
                shown.add(everything(e));
            }
        } catch (RuntimeException e) {
            shown.add(everything(e));
        }
        assertNoSecret(row, shown);
    }

    /** Every command, at every verbosity, through the same picocli set-up as the jar. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void noPasswordInCliOutput(Row row) {
        List<String> backend = new ArrayList<>(List.of("--backend", row.uri()));
        backend.addAll(row.settingArgs());
        List<List<String>> commands = new ArrayList<>(List.of(
                concat(List.of("exec", "--name", "secrets-exec", "--no-wait"), backend, List.of("--", "true")),
                concat(List.of("exec", "-v", "--name", "secrets-exec", "--no-wait"), backend, List.of("--", "true")),
                concat(List.of("exec", "-q", "--name", "secrets-exec", "--no-wait"), backend, List.of("--", "true")),
                concat(List.of("inspect", "secrets-inspect"), backend, List.of()),
                concat(List.of("list", "--json", "--prefix", "secrets-"), backend, List.of())));
        if (row.realServer()) {
            // past connecting, every command and output format has something of its own to print; on a closed
            // port they all fail in the same connect (checked above), so only real servers pay for the rest
            commands.addAll(List.of(
                    concat(List.of("inspect", "--json", "secrets-inspect"), backend, List.of()),
                    concat(List.of("list", "--prefix", "secrets-"), backend, List.of()),
                    concat(List.of("release", "--force", "secrets-release"), backend, List.of()),
                    concat(List.of("verify", "--group", "fencing", "--short-lease", "2s"), backend, List.of())));
        }
        List<String> shown = new ArrayList<>();
        for (List<String> args : commands) {
            String command = "latchkey " + String.join(" ", args).replace(row.secret(), "<the password>");
            shown.add(command + " -> " + inProcess(args));
        }
        assertNoSecret(row, shown);
    }

    /** The real jar, with the simple logger at DEBUG, for exec -v (pw@ and percent-encoded rows). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jarRows")
    void noPasswordFromTheJarAtDebug(Row row) {
        List<String> args =
                new ArrayList<>(List.of("exec", "-v", "--name", "secrets-jar", "--no-wait", "--backend", row.uri()));
        args.addAll(row.settingArgs());
        args.addAll(List.of("--", "true"));
        LatchkeyJar.Result r = cli.start(
                        Map.of("JAVA_TOOL_OPTIONS", "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug"),
                        List.of(),
                        args.toArray(String[]::new))
                .await(Duration.ofMinutes(2));
        // only what the process printed: the command line itself holds the password
        assertNoSecret(row, List.of("exit " + r.exit() + "\nstdout:\n" + r.stdout() + "stderr:\n" + r.stderr()));
    }

    /**
     * A last sweep of the DEBUG log, after every row: a background thread (a reconnecting client) may log
     * after its row's own check.
     */
    @AfterAll
    static void noPasswordInTheDebugLogAtAll() {
        String log = debugLog();
        List<String> leaked = ROWS.stream()
                .filter(r -> log.contains(r.secret()))
                .map(Row::label)
                .toList();
        assertThat(leaked)
                .as("rows whose password is in the DEBUG log %s", System.getProperty(DEBUG_LOG))
                .isEmpty();
    }

    static String debugLog() {
        try {
            return Files.readString(Paths.get(System.getProperty(DEBUG_LOG)), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertNoSecret(Row row, List<String> shown) {
        List<String> everywhere = new ArrayList<>(shown);
        String log = debugLog();
        if (log.contains(row.secret())) {
            // only this row's lines: the log holds every row's
            everywhere.add("DEBUG log: "
                    + log.lines().filter(l -> l.contains(row.secret())).toList());
        }
        String all = String.join("\n----\n", everywhere);
        assertThat(all)
                .as("password of row '%s' (%s) shown in:%n%s", row.label(), row.secret(), all)
                .doesNotContain(row.secret());
    }

    /** verify hands its target to the TCK through a static field: one verification at a time per JVM. */
    private static final java.util.concurrent.locks.ReentrantLock VERIFY =
            new java.util.concurrent.locks.ReentrantLock();

    private static String inProcess(List<String> args) {
        boolean verify = args.get(0).equals("verify");
        if (verify) {
            VERIFY.lock();
        }
        try {
            return runInProcess(args);
        } finally {
            if (verify) {
                VERIFY.unlock();
            }
        }
    }

    private static String runInProcess(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int status;
        try {
            status = cl.execute(args.toArray(String[]::new));
        } catch (RuntimeException e) {
            return "threw " + everything(e);
        }
        return "exit " + status + "\nstdout: " + out + "\nstderr: " + err;
    }

    /** Messages, toString, causes and suppressed exceptions: the whole printed stack trace. */
    static String everything(Throwable e) {
        StringWriter w = new StringWriter();
        e.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    private static Row closedPortRow(String scheme, String form, String hosts) {
        String secret = token("pw");
        String pw = form.equals("p%40ss") ? "p%40ss" + secret : secret;
        boolean jdbc = scheme.startsWith("jdbc:");
        boolean h2 = scheme.equals("jdbc:h2");
        String prefix = h2 ? "jdbc:h2:tcp://" : scheme + "://";
        String path = h2 ? "/mem:secrets" : jdbc ? "/db" : "";
        Map<String, String> settings = timeout();
        String uri = switch (form) {
            case "user:pw@", "p%40ss" -> prefix + "user:" + pw + "@" + hosts + path;
            case ":pw@" -> prefix + ":" + pw + "@" + hosts + path;
            case "pw@" -> prefix + pw + "@" + hosts + path;
            case "?password=" ->
                h2
                        ? prefix + hosts + path + ";USER=u;PASSWORD=" + pw
                        : prefix + hosts + path + "?user=u&password=" + pw;
            case "setting" -> {
                settings = timeout(Map.of("user", "u", "password", pw));
                yield prefix + hosts + path;
            }
            default -> throw new IllegalArgumentException(form);
        };
        return new Row(scheme + " " + form, uri, settings, secret);
    }

    /** A real server answers at once: its rows need no connect timeout (and reach authentication on every branch). */
    private static Map<String, String> withoutTimeout(Map<String, String> settings) {
        Map<String, String> s = new LinkedHashMap<>(settings);
        s.remove("connectTimeout");
        return s;
    }

    private static Map<String, String> timeout() {
        return timeout(Map.of());
    }

    private static Map<String, String> timeout(Map<String, String> more) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("connectTimeout", "1s");
        s.putAll(more);
        return s;
    }

    /** A token unique to a row, so that a find names the row that leaked. */
    private static String token(String what) {
        return what + "Zq"
                + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
                        .toUpperCase(Locale.ROOT);
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * Turns the trust-authenticated test server into one that asks role {@code lk} for its password over TCP
     * (the superuser keeps trust, to set it up), and returns the URL without user or password.
     */
    private static String passwordProtected(String url, String password) throws Exception {
        try (Connection c = DriverManager.getConnection(url);
                Statement st = c.createStatement()) {
            st.execute("CREATE ROLE lk LOGIN PASSWORD '" + password + "'");
            st.execute("GRANT ALL ON SCHEMA public TO lk");
            String hba;
            try (ResultSet rs = st.executeQuery("SHOW hba_file")) {
                rs.next();
                hba = rs.getString(1);
            }
            Files.writeString(
                    Paths.get(hba),
                    "local all all trust\nhost all postgres 127.0.0.1/32 trust\n"
                            + "host all all 127.0.0.1/32 scram-sha-256\n",
                    StandardCharsets.UTF_8);
            st.execute("SELECT pg_reload_conf()");
        }
        return url.substring(0, url.indexOf('?'));
    }

    private static List<String> concat(List<String> a, List<String> b, List<String> c) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        all.addAll(c);
        return all;
    }
}
