package io.latchkey.servers;

import static io.latchkey.servers.TestServers.answers;
import static io.latchkey.servers.TestServers.httpHead;
import static io.latchkey.servers.TestServers.httpServer;
import static io.latchkey.servers.TestServers.isRunning;
import static io.latchkey.servers.TestServers.noneRunning;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs real processes (python3's http.server, small sh scripts) through {@link ServerProcess}. */
@Timeout(30)
class ServerProcessTest {

    private static final Duration FROZEN_PROBE_TIMEOUT = Duration.ofMillis(500);
    private static final Duration RECOVERY = Duration.ofSeconds(5);

    private final List<ServerProcess> servers = new ArrayList<>();

    @AfterEach
    void closeServers() {
        servers.forEach(ServerProcess::close);
    }

    private ServerProcess track(ServerProcess server) {
        servers.add(server);
        return server;
    }

    private ServerProcess script(String script, ReadinessCheck readiness) {
        return track(ServerProcess.builder()
                .name("script")
                .command("sh", "-c", script)
                .readiness(readiness)
                .startupTimeout(Duration.ofSeconds(10))
                .stopTimeout(Duration.ofSeconds(5))
                .build());
    }

    private static List<Long> pids(ServerProcess server) {
        return server.processTree().stream().map(ProcessHandle::pid).toList();
    }

    @Test
    void startWaitsUntilTheServerAnswersOnItsFreePort() throws IOException {
        int port = FreePorts.find();
        // the log-line half only passes if the PYTHONUNBUFFERED environment addition reached python
        ServerProcess server = track(httpServer(port)
                .readiness(ReadinessCheck.tcpPortOpen(port)
                        .and(ReadinessCheck.logLineMatches("Serving HTTP on 127\\.0\\.0\\.1 port " + port)))
                .build());

        server.start();

        assertThat(server.isAlive()).isTrue();
        assertThat(httpHead(port, Duration.ofSeconds(2))).startsWith("HTTP/1.0 200");
        assertThat(server.pid()).isEqualTo(server.processTree().get(0).pid());
        assertThat(Files.readString(server.logFile())).contains("Serving HTTP on 127.0.0.1 port " + port);
    }

    @Test
    void startFailureReportsTheExitCodeCommandAndLogTail() {
        int port = FreePorts.find();
        ServerProcess server = script(
                "echo starting up; echo 'FATAL: config is broken' >&2; exit 3", ReadinessCheck.tcpPortOpen(port));

        assertThatThrownBy(server::start).isInstanceOfSatisfying(ServerStartException.class, e -> {
            assertThat(e.exitCode()).hasValue(3);
            assertThat(e.getMessage())
                    .contains(
                            "exited with code 3",
                            "sh -c",
                            "starting up",
                            "FATAL: config is broken",
                            "TCP 127.0.0.1:" + port + " accepts connections");
            assertThat(e.logTail()).contains("starting up", "FATAL: config is broken");
            assertThat(e.elapsed()).isLessThan(Duration.ofSeconds(10));
        });
        assertThat(server.isAlive()).isFalse();
    }

    @Test
    void startTimeoutReportsTheElapsedTimeAndKillsTheServer() {
        int port = FreePorts.find();
        ServerProcess server = track(ServerProcess.builder()
                .command("sh", "-c", "echo still booting; exec sleep 60")
                .readiness(ReadinessCheck.tcpPortOpen(port))
                .startupTimeout(Duration.ofSeconds(1))
                .build());

        assertThatThrownBy(server::start).isInstanceOfSatisfying(ServerStartException.class, e -> {
            assertThat(e.exitCode()).isEmpty();
            assertThat(e.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
            assertThat(e.getMessage())
                    .contains(
                            "was not ready after",
                            "startup timeout 1.00 s",
                            "still running and has been killed",
                            "still booting",
                            "Connection refused");
        });
        assertThat(isRunning(server.pid())).isFalse();
    }

    @Test
    void pauseFreezesTheServerAndResumeThawsIt() throws IOException {
        int port = FreePorts.find();
        ServerProcess server = track(httpServer(port).build());
        server.start();
        assertThat(answers(port)).isTrue();

        server.pause();

        assertThat(server.isPaused()).isTrue();
        assertThat(ProcessTree.state(server.pid())).isEqualTo('T');
        assertThatThrownBy(() -> httpHead(port, FROZEN_PROBE_TIMEOUT)).isInstanceOf(SocketTimeoutException.class);

        server.resume();

        assertThat(server.isPaused()).isFalse();
        await().atMost(RECOVERY).until(() -> answers(port));
    }

    @Test
    void pauseFreezesChildrenForkedWhileStopping() {
        // a server that forks all the time (as PostgreSQL forks a backend per connection): a child forked
        // between the look at the process tree and the parent's SIGSTOP must not escape the freeze
        int port = FreePorts.find();
        ServerProcess server = track(httpServer(port)
                .command(
                        "sh",
                        "-c",
                        "(while :; do sleep 2 & sleep 0.005; done) & exec " + TestServers.PYTHON + " -m http.server "
                                + port + " --bind 127.0.0.1")
                .build());
        server.start();
        await().atMost(RECOVERY).until(() -> server.processTree().size() > 10);
        for (int i = 0; i < 5; i++) {
            server.pause();
            List<ProcessHandle> frozen = server.processTree();
            // frozen = nothing runs: stopped ('T'), or a child that had already exited and waits, as a zombie,
            // for its stopped parent to reap it (a zombie cannot be stopped, nor run, nor fork). The bound is
            // generous because listing a tree of hundreds of processes is slow on a loaded machine.
            try {
                await().during(java.time.Duration.ofMillis(300))
                        .atMost(java.time.Duration.ofSeconds(10))
                        .until(() -> {
                            List<ProcessHandle> now = server.processTree();
                            return now.size() == frozen.size() && now.stream().allMatch(ServerProcessTest::frozen);
                        });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError(
                        "the tree did not stay frozen after pause " + (i + 1) + ": " + frozen.size()
                                + " processes then, now " + describe(server.processTree()),
                        e);
            }
            server.resume();
        }
    }

    private static boolean frozen(ProcessHandle p) {
        char state = ProcessTree.state(p.pid());
        return state == 'T' || state == 't' || !ProcessTree.isRunning(p);
    }

    /** pid:state for the processes that are not frozen, for a failure message. */
    private static String describe(List<ProcessHandle> processes) {
        StringBuilder sb = new StringBuilder();
        for (ProcessHandle p : processes) {
            if (!frozen(p)) {
                sb.append(p.pid())
                        .append(':')
                        .append(ProcessTree.state(p.pid()))
                        .append(' ');
            }
        }
        return processes.size() + " processes, not frozen: [" + sb.toString().trim() + "]";
    }

    @Test
    void pauseFreezesTheRealServerBehindAShellWrapper() {
        int port = FreePorts.find();
        // no exec, and a command after it: sh stays as the parent and python runs as its child
        ServerProcess server = track(httpServer(port)
                .command("sh", "-c", TestServers.PYTHON + " -m http.server " + port + " --bind 127.0.0.1; echo gone")
                .build());
        server.start();
        List<ProcessHandle> tree = server.processTree();
        assertThat(tree).hasSizeGreaterThanOrEqualTo(2);
        long python = tree.get(tree.size() - 1).pid();
        assertThat(python).isNotEqualTo(server.pid());

        server.pause();

        assertThat(ProcessTree.state(python)).isEqualTo('T');
        assertThatThrownBy(() -> httpHead(port, FROZEN_PROBE_TIMEOUT)).isInstanceOf(SocketTimeoutException.class);

        server.resume();

        await().atMost(RECOVERY).until(() -> answers(port));
    }

    @Test
    void runsAsAnotherUserWhenTheJvmIsRootAndPausesTheRealServer() throws IOException {
        assumeTrue(RunAsUser.isRoot(), "only root can switch users");
        assumeTrue(TestServers.PYTHON.startsWith("/usr/bin/"), "needs a python3 that user nobody can run");
        int port = FreePorts.find();
        ServerProcess server = track(httpServer(port).runAsUser("nobody").build());
        server.start();

        Optional<ProcessHandle> python = server.processTree().stream()
                .filter(p -> p.info().command().orElse("").contains("python"))
                .findFirst();
        assertThat(python).isPresent();
        assertThat(Files.getOwner(Path.of("/proc", Long.toString(python.get().pid())))
                        .getName())
                .isEqualTo("nobody");
        assertThat(server.pid()).isNotEqualTo(python.get().pid()); // the wrapper is the direct child

        server.pause();
        assertThat(ProcessTree.state(python.get().pid())).isEqualTo('T');
        assertThatThrownBy(() -> httpHead(port, FROZEN_PROBE_TIMEOUT)).isInstanceOf(SocketTimeoutException.class);
        server.resume();
        await().atMost(RECOVERY).until(() -> answers(port));
    }

    @Test
    void killEndsTheServerAtOnceAndRestartBringsItBack() {
        int port = FreePorts.find();
        ServerProcess server = track(httpServer(port).build());
        server.start();
        long pid = server.pid();

        server.kill();

        assertThat(server.isAlive()).isFalse();
        assertThat(isRunning(pid)).isFalse();
        assertThat(answers(port)).isFalse();

        server.restart();

        assertThat(server.pid()).isNotEqualTo(pid);
        assertThat(answers(port)).isTrue();
    }

    @Test
    void stopLetsTheServerShutDownOnSigterm() {
        ServerProcess server = script(
                "trap 'echo got SIGTERM; exit 0' TERM; echo ready; " + "while true; do sleep 0.2; done",
                ReadinessCheck.logLineMatches("^ready$"));
        server.start();

        server.stop();

        assertThat(server.isAlive()).isFalse();
        assertThat(server.logTail()).contains("got SIGTERM");
    }

    @Test
    void stopSendsTheChosenStopSignal() {
        // a server that shuts down on SIGINT only (as PostgreSQL's fast shutdown) and ignores SIGTERM: stopped by
        // its stop signal, long before a 20 s stop timeout would kill it. Perl, not sh: a build started in the
        // background of a script inherits SIGINT ignored, and sh cannot trap a signal ignored on entry (a real server
        // such as PostgreSQL installs its own handler, as perl does)
        ServerProcess server = track(ServerProcess.builder()
                .command(
                        "perl",
                        "-e",
                        "$| = 1; $SIG{INT} = sub { print \"got SIGINT\\n\"; exit 0 }; $SIG{TERM} = 'IGNORE';"
                                + " print \"ready\\n\"; sleep 1 while 1;")
                .readiness(ReadinessCheck.logLineMatches("^ready$"))
                .stopSignal("INT")
                .stopTimeout(Duration.ofSeconds(20))
                .build());
        server.start();
        long before = System.nanoTime();

        server.stop();

        assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(10));
        assertThat(server.isAlive()).isFalse();
        assertThat(server.logTail()).contains("got SIGINT");
        assertThatThrownBy(() -> ServerProcess.builder().stopSignal("KILL"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TERM, INT, QUIT or HUP");
    }

    @Test
    void stopKillsAServerThatIgnoresSigtermAfterTheStopTimeout() {
        ServerProcess server = track(ServerProcess.builder()
                .command("sh", "-c", "trap '' TERM; echo ready; while true; do sleep 0.2; done")
                .readiness(ReadinessCheck.logLineMatches("^ready$"))
                .stopTimeout(Duration.ofMillis(500))
                .build());
        server.start();
        List<Long> pids = pids(server);
        long before = System.nanoTime();

        server.stop();

        assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
        assertThat(server.isAlive()).isFalse();
        assertThat(noneRunning(pids)).isTrue();
        assertThat(server.logTail()).doesNotContain("got SIGTERM");
    }

    @Test
    void stopOfAPausedServerStillEndsIt() {
        int port = FreePorts.find();
        ServerProcess server = track(httpServer(port).build());
        server.start();
        server.pause();
        long pid = server.pid();

        server.stop();

        assertThat(isRunning(pid)).isFalse();
        assertThat(server.isPaused()).isFalse();
    }

    @Test
    void restartComesBackOnTheSamePort() {
        int port = FreePorts.find();
        ServerProcess server = track(httpServer(port).build());
        server.start();
        long first = server.pid();

        server.restart();

        assertThat(server.pid()).isNotEqualTo(first);
        assertThat(isRunning(first)).isFalse();
        assertThat(answers(port)).isTrue();
        assertThat(server.logTail()).anyMatch(line -> line.contains("start #2"));
    }

    @Test
    void closeKillsTheWholeProcessTreeAndDeletesTheLog() {
        ServerProcess server = script(
                "sleep 300 & sleep 300 & echo children started; wait",
                ReadinessCheck.logLineMatches("children started"));
        server.start();
        List<Long> pids = pids(server);
        assertThat(pids).hasSize(3);
        Path logDirectory = server.logFile().getParent();

        server.close();

        assertThat(noneRunning(pids)).as("all of %s gone", pids).isTrue();
        assertThat(logDirectory).doesNotExist();
        assertThatThrownBy(server::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void closeDeletesDirectoriesRegisteredForDeletion() throws IOException {
        Path dataDirectory = Files.createTempDirectory("latchkey-test-data-");
        Files.writeString(dataDirectory.resolve("some-file"), "data");
        ServerProcess server = track(ServerProcess.builder()
                .command("sh", "-c", "echo ready; exec sleep 60")
                .readiness(ReadinessCheck.logLineMatches("ready"))
                .deleteOnClose(dataDirectory)
                .build());
        server.start();

        server.close();

        assertThat(dataDirectory).doesNotExist();
    }

    @Test
    void theShutdownHookKillsServersThatWereNeverClosed() {
        ServerProcess server = script("sleep 300 & echo up; wait", ReadinessCheck.logLineMatches("^up$"));
        server.start();
        List<Long> pids = pids(server);
        assertThat(LiveProcesses.snapshot()).contains(server);

        LiveProcesses.kill(List.of(server)); // what the hook does, limited to this test's server

        await().atMost(RECOVERY).until(() -> noneRunning(pids));
        assertThat(LiveProcesses.snapshot()).doesNotContain(server);
    }

    @Test
    void theLogTailKeepsTheLastLinesWhileTheFileKeepsEverything() throws IOException {
        ServerProcess server = track(ServerProcess.builder()
                .command(
                        "sh",
                        "-c",
                        "i=1; while [ $i -le 500 ]; do echo \"line $i\"; i=$((i+1)); done; "
                                + "echo ready; exec sleep 60")
                .readiness(ReadinessCheck.logLineMatches("^ready$"))
                .logTailLines(50)
                .build());
        server.start();

        List<String> tail = server.logTail();
        assertThat(tail).hasSize(50).endsWith("line 500", "ready").doesNotContain("line 451");
        assertThat(Files.readAllLines(server.logFile())).contains("line 1", "line 451", "line 500");
    }

    @Test
    void controlOperationsNeedARunningServer() {
        ServerProcess server = track(httpServer(FreePorts.find()).build());

        assertThatThrownBy(server::pause)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not running");
        assertThatThrownBy(server::pid)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("never started");
        server.resume(); // nothing to thaw: no effect
        server.stop();
        server.kill();
        assertThat(server.isAlive()).isFalse();
    }

    @Test
    void theBuilderRejectsBadArgumentsSayingWhatIsAllowed() {
        assertThatThrownBy(() -> ServerProcess.builder().command(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must start with an executable");
        assertThatThrownBy(() -> ServerProcess.builder().command("true").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("readiness check is required");
        assertThatThrownBy(() -> ServerProcess.builder().startupTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive duration");
        assertThatThrownBy(() -> ServerProcess.builder().logTailLines(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1 and 10000");
        assertThatThrownBy(() -> ServerProcess.builder().runAsUser("no body"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user name");
        assertThatThrownBy(() -> ServerProcess.builder().workingDirectory(Path.of("/no/such/dir")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("existing directory");
        assertThatThrownBy(() -> ReadinessCheck.logLineMatches("(unclosed"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("regular expression");
    }
}
