package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.servers.Binaries;
import io.latchkey.servers.Directories;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code latchkey bench}: a table with a row per backend, no exclusion violation, a PNG chart, the JMH note;
 * the servers its keywords start (PostgreSQL, MariaDB, etcd as processes, ZooKeeper in-process) are measured
 * and then leave nothing behind, also after Ctrl-C; a missing server binary names its Debian package.
 *
 * <p>"Nothing behind" is checked three ways: every process that was ever a descendant of the latchkey JVM
 * (sampled while it ran) is gone, no process mentions the run's private temporary directory
 * ({@code -Djava.io.tmpdir}, where data directories and server logs go), and that directory is empty.
 */
class BenchIT {
    private static final String[][] SERVER_BINARIES = {
        {"postgres", "postgresql"},
        {"mariadbd", "mariadb-server"},
        {"mariadb-install-db", "mariadb-server"},
        {"etcd", "etcd-server"}
    };
    private static final Path TMPFS = Path.of("/dev/shm");

    @TempDir
    Path temp;

    /** The latchkey JVM's java.io.tmpdir, outside @TempDir because the postgres user must reach into it. */
    private Path privateTmp;

    @AfterEach
    void deletePrivateTmp() throws IOException {
        if (privateTmp != null) {
            Directories.deleteRecursively(privateTmp);
        }
    }

    @Test
    void benchesMemAndH2AndWritesAChart() throws Exception {
        try (LatchkeyJar cli = new LatchkeyJar(temp)) {
            Path chart = temp.resolve("out/bench.png");
            LatchkeyJar.Result r = cli.run(
                    "bench", "--backends", "mem,h2", "--duration", "1s", "--threads", "3", "--chart", chart.toString());
            assertThat(r.exit()).as(r.toString()).isZero();
            List<String> lines = r.stdout().lines().toList();
            assertThat(lines.get(0))
                    .as(r.toString())
                    .startsWith("BACKEND")
                    .contains("CYCLES/S", "HANDOFF %", "P50 ACQUIRE", "P99 ACQUIRE", "OVERLAPS");
            assertThat(lines)
                    .as(r.toString())
                    .anyMatch(l -> l.matches("^mem\\s+3\\s+[1-9]\\d*\\s+.*\\s0$"))
                    .anyMatch(l -> l.matches("^h2 \\(embedded file\\)\\s+3\\s+[1-9]\\d*\\s+.*\\s0$"));
            assertThat(r.stdout()).contains("JMH suite in the jmh module");
            byte[] png = Files.readAllBytes(chart);
            assertThat(png).as("a PNG file").startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
            assertThat(r.stderr()).as("a progress bar").contains("bench");
        }
    }

    @Test
    void aBackendThatCannotBeReachedIsReportedNotHidden() {
        try (LatchkeyJar cli = new LatchkeyJar(temp)) {
            LatchkeyJar.Result r = cli.run(
                    "bench",
                    "--backends",
                    "mem,jdbc:postgresql://127.0.0.1:1/none",
                    "--duration",
                    "1s",
                    "--threads",
                    "1",
                    "--no-chart");
            assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.BACKEND_UNAVAILABLE);
            assertThat(r.stdout()).as(r.toString()).contains("not measured:");
        }
    }

    @Test
    void startsMeasuresAndStopsLocalServers() throws Exception {
        requireServerBinaries();
        List<String> etcdDirsBefore = tmpfsEntries();
        try (LatchkeyJar cli = new LatchkeyJar(temp)) {
            Path chart = temp.resolve("servers.png");
            LatchkeyJar.Running run = cli.start(
                    Map.of(),
                    List.of("-Djava.io.tmpdir=" + privateTmp()),
                    "bench",
                    "--backends",
                    "postgres,postgres-session,mariadb,zookeeper,etcd",
                    "--duration",
                    "1s",
                    "--threads",
                    "2",
                    "--chart",
                    chart.toString());
            Descendants watched = new Descendants(run.process);
            LatchkeyJar.Result r = run.await(Duration.ofMinutes(4));
            watched.join();

            assertThat(r.exit()).as(r.toString()).isZero();
            List<String> lines = r.stdout().lines().toList();
            for (String label : List.of(
                    "postgres (local server)",
                    "postgres (local server, session mode)",
                    "mariadb (local server)",
                    "zookeeper (in-process server)",
                    "etcd (local server)")) {
                // clients 2, cycles/s > 0, ..., overlaps 0
                assertThat(lines)
                        .as(label + " measured in\n" + r)
                        .anyMatch(l -> l.matches("^" + Pattern.quote(label) + "\\s+2\\s+[1-9]\\d*\\s+.*\\s0$"));
            }
            byte[] png = Files.readAllBytes(chart);
            assertThat(png).as("a PNG file").startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
            assertThat(watched.commands())
                    .as("the server processes bench started (sampled while it ran)")
                    .anyMatch(c -> c.endsWith("/postgres"))
                    .anyMatch(c -> c.endsWith("/mariadbd"))
                    .anyMatch(c -> c.endsWith("/etcd"));
            assertNothingLeft(watched);
            assertThat(tmpfsEntries()).as("etcd data directories on tmpfs").isEqualTo(etcdDirsBefore);
        }
    }

    @Test
    void ctrlCStopsTheServerBeingMeasured() throws Exception {
        requireServerBinaries();
        try (LatchkeyJar cli = new LatchkeyJar(temp)) {
            LatchkeyJar.Running run = cli.start(
                    Map.of(),
                    List.of("-Djava.io.tmpdir=" + privateTmp()),
                    "bench",
                    "--backends",
                    "postgres",
                    "--duration",
                    "60s",
                    "--threads",
                    "2",
                    "--no-chart");
            Descendants watched = new Descendants(run.process);
            // PostgreSQL runs and the measurement has made progress (so the clients are connected)
            await().atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> watched.commands().stream().anyMatch(c -> c.endsWith("/postgres"))
                            && Pattern.compile("[1-9]\\d*/60s")
                                    .matcher(run.stderr())
                                    .find());
            run.signal("INT");
            LatchkeyJar.Result r = run.await(Duration.ofMinutes(1));
            watched.join();
            assertThat(r.exit()).as(r.toString()).isEqualTo(128 + 2);
            assertNothingLeft(watched);
        }
    }

    @Test
    void aMissingServerBinaryNamesItsDebianPackageAndTheOthersStillRun() {
        try (LatchkeyJar cli = new LatchkeyJar(temp)) {
            // etcd lives in /usr/bin, which is searched only through PATH
            LatchkeyJar.Result r = cli.start(
                            Map.of("PATH", temp.resolve("empty-path").toString()),
                            List.of(),
                            "bench",
                            "--backends",
                            "etcd,mem",
                            "--duration",
                            "1s",
                            "--threads",
                            "1",
                            "--no-chart")
                    .await(Duration.ofMinutes(2));
            assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.BACKEND_UNAVAILABLE);
            assertThat(r.stdout())
                    .as(r.toString())
                    .containsPattern(
                            "(?m)^etcd\\s+1\\s+not measured: etcd is not installed \\(Debian: apt-get install etcd-server\\)")
                    .containsPattern("(?m)^mem\\s+1\\s+[1-9]\\d*\\s+.*\\s0$");
        }
    }

    /** Runs the server tests, or skips them, or fails them with LATCHKEY_REQUIRE_SERVERS=true, as AdminIT does. */
    private static void requireServerBinaries() {
        List<String> missing = new ArrayList<>();
        for (String[] binary : SERVER_BINARIES) {
            if (Binaries.find(binary[0]).isEmpty()) {
                missing.add(binary[0] + " (Debian: apt-get install " + binary[1] + ")");
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        if ("true".equalsIgnoreCase(System.getenv("LATCHKEY_REQUIRE_SERVERS"))) {
            throw new AssertionError("not installed: " + missing + ", and LATCHKEY_REQUIRE_SERVERS=true");
        }
        Assumptions.abort("not installed: " + missing);
    }

    private Path privateTmp() throws IOException {
        privateTmp = Files.createTempDirectory("latchkey-benchit-");
        // PostgreSQL runs as the postgres user when the tests run as root: it must reach its directory inside
        Files.setPosixFilePermissions(privateTmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        return privateTmp;
    }

    private void assertNothingLeft(Descendants watched) {
        await("every process the latchkey JVM started has exited")
                .atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(watched.alive()).isEmpty());
        await("no process uses " + privateTmp)
                .atMost(Duration.ofSeconds(20))
                .untilAsserted(() ->
                        assertThat(processesMentioning(privateTmp.toString())).isEmpty());
        await(privateTmp + " is empty (data directories and server logs deleted)")
                .atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> {
                    try (Stream<Path> left = Files.list(privateTmp)) {
                        assertThat(left.toList()).isEmpty();
                    }
                });
    }

    private static List<String> processesMentioning(String text) throws IOException, InterruptedException {
        Process ps = new ProcessBuilder("ps", "-eo", "pid=,args=")
                .redirectErrorStream(true)
                .start();
        String out = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(ps.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out.lines().filter(l -> l.contains(text)).toList();
    }

    private static List<String> tmpfsEntries() throws IOException {
        if (!Files.isDirectory(TMPFS)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(TMPFS)) {
            return entries.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("latchkey-bench-etcd-"))
                    .sorted()
                    .toList();
        }
    }

    /**
     * Every process that is a descendant of a running process at some sample (every 50 ms until it exits),
     * with its command as seen then: the servers bench starts live for seconds, so none is missed.
     */
    private static final class Descendants {
        private final Map<ProcessHandle, String> seen = new ConcurrentHashMap<>();
        private final Thread sampler;

        Descendants(Process process) {
            sampler = new Thread(
                    () -> {
                        while (process.isAlive()) {
                            // a process first seen while it is being spawned shows the spawn helper, or no command
                            // at all; later samples show the program it became, so the latest known command is kept
                            // (keeping the first one missed etcd in one CI rehearsal: it was seen as jspawnhelper)
                            process.descendants()
                                    .forEach(p -> seen.merge(
                                            p,
                                            p.info().command().orElse("?"),
                                            (before, now) -> now.equals("?") ? before : now));
                            LockSupport.parkNanos(
                                    TimeUnit.MILLISECONDS.toNanos(50)); // a sampling interval, not a wait for state
                        }
                    },
                    "bench-it-descendants");
            sampler.setDaemon(true);
            sampler.start();
        }

        void join() throws InterruptedException {
            sampler.join(TimeUnit.SECONDS.toMillis(10));
        }

        Collection<String> commands() {
            return List.copyOf(seen.values());
        }

        List<String> alive() {
            return seen.entrySet().stream()
                    .filter(e -> e.getKey().isAlive())
                    .map(e -> e.getKey().pid() + " " + e.getValue())
                    .toList();
        }
    }
}
