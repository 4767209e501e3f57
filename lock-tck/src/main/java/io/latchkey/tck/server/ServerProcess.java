package io.latchkey.tck.server;

import java.io.File;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real server binary running as a child process on loopback, for tests and benchmarks: started and
 * waited for until ready, its output kept in a log file and an in-memory tail, and controllable for fault
 * injection (pause/resume with SIGSTOP/SIGCONT, kill, stop, restart).
 *
 * <p>Lifecycle: built → {@link #start()} → running ⇄ paused → stopped/killed → (restart) running … →
 * {@link #close()}, after which it cannot be started again. The same command runs on every start, so a
 * restarted server listens on the same ports.
 *
 * <p>Concurrency: lifecycle operations are serialised by one {@link ReentrantLock} (they wait for
 * processes, so {@code synchronized} is avoided); state read by {@link #isAlive()}, {@link #pid()} and the
 * log accessors is volatile or independently thread-safe, so those never block behind a slow stop.
 * Signals go to the whole process tree, because wrappers ({@code runuser}, {@code su}, shell scripts) fork
 * the real server and do not forward signals.
 *
 * <p>Clean-up: {@link #close()} kills the tree and deletes the temporary directory holding the log and
 * every directory passed to {@link Builder#deleteOnClose(Path)}. A JVM shutdown hook kills every server
 * that was not closed. Servers must run in the foreground: one that daemonises escapes supervision.
 */
public final class ServerProcess implements ServerControl, AutoCloseable {

    /** Default time a server gets to become ready. */
    public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(60);
    /** Default time a server gets to exit after SIGTERM before it is killed. */
    public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(10);
    /** Default number of log lines kept in memory and quoted in failure messages. */
    public static final int DEFAULT_LOG_TAIL_LINES = 200;

    private static final Logger LOG = LoggerFactory.getLogger(ServerProcess.class);
    private static final long READINESS_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration SIGNAL_SETTLE_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(10);

    private enum State { NEW, STARTING, RUNNING, PAUSED, STOPPED, CLOSED }

    private final String name;
    private final List<String> command;
    private final List<String> launchedCommand;
    private final Path workingDirectory;
    private final Map<String, String> environment;
    private final String runAsUser;
    private final ReadinessCheck readiness;
    private final Duration startupTimeout;
    private final Duration stopTimeout;
    private final String stopSignal;
    private final int logTailLines;
    private final List<Path> deleteOnClose;

    private final ReentrantLock lifecycle = new ReentrantLock();
    private volatile State state = State.NEW;
    private volatile Process process;
    private volatile Path tempDirectory;
    private volatile LogCapture log;
    private volatile long runLogOffset;
    private int starts;

    private ServerProcess(Builder builder) {
        this.command = List.copyOf(builder.command);
        this.name = builder.name != null ? builder.name : Path.of(command.get(0)).getFileName().toString();
        this.runAsUser = builder.runAsUser;
        this.launchedCommand = runAsUser == null ? command : RunAsUser.wrap(runAsUser, command);
        this.workingDirectory = builder.workingDirectory;
        this.environment = Map.copyOf(builder.environment);
        this.readiness = builder.readiness;
        this.startupTimeout = builder.startupTimeout;
        this.stopTimeout = builder.stopTimeout;
        this.stopSignal = builder.stopSignal;
        this.logTailLines = builder.logTailLines;
        this.deleteOnClose = List.copyOf(builder.deleteOnClose);
        if (runAsUser != null && launchedCommand.equals(command) && !runAsUser.equals(RunAsUser.currentUser())) {
            LOG.info("{}: not running as '{}' because this JVM is not root; running as '{}'", name, runAsUser,
                    RunAsUser.currentUser());
        }
    }

    /**
     * Starts describing a server process.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Launches the server and waits until its readiness check passes.
     *
     * @throws ServerStartException if it cannot be launched, exits early, or is not ready within the
     *     startup timeout (it is killed then); the message has the command, elapsed time, exit code and log tail
     * @throws IllegalStateException if it is already running or was closed
     */
    public void start() {
        lifecycle.lock();
        try {
            requireNotClosed();
            if (process != null && process.isAlive()) {
                throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
            }
            state = State.STARTING;
            LogCapture capture = prepareLog();
            starts++;
            capture.writeMarker("----- latchkey: start #" + starts + " of " + name + ": " + commandLine() + " -----");
            runLogOffset = capture.size();
            long startedAt = System.nanoTime();
            Process launched = launch(capture, startedAt);
            awaitReady(launched, capture, startedAt);
            state = State.RUNNING;
            LOG.info("{} is ready (pid {}) after {}", name, launched.pid(), seconds(elapsedSince(startedAt)));
        } finally {
            if (state == State.STARTING) {
                state = State.STOPPED;
            }
            lifecycle.unlock();
        }
    }

    private LogCapture prepareLog() {
        if (log == null) {
            try {
                tempDirectory = Files.createTempDirectory("latchkey-server-");
            } catch (IOException e) {
                throw new ServerStartException("could not create a temporary directory for the log of " + name
                        + ": " + e, null, List.of(), Duration.ZERO, e);
            }
            log = new LogCapture(tempDirectory.resolve("server.log"), logTailLines);
        }
        return log;
    }

    private Process launch(LogCapture capture, long startedAt) {
        ProcessBuilder builder = new ProcessBuilder(launchedCommand)
                .redirectErrorStream(true)
                // servers must not wait for console input that never comes
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        if (workingDirectory != null) {
            builder.directory(workingDirectory.toFile());
        }
        builder.environment().putAll(environment);
        Process launched;
        try {
            launched = builder.start();
        } catch (IOException e) {
            throw failure("could not be launched: " + e.getMessage(), null, startedAt, null, e);
        }
        process = launched;
        LiveProcesses.register(this);
        capture.startPumping(launched.getInputStream(), "latchkey-log-" + name + "-" + launched.pid());
        LOG.debug("launched {} as pid {}: {}", name, launched.pid(), commandLine());
        return launched;
    }

    private void awaitReady(Process launched, LogCapture capture, long startedAt) {
        long deadline = startedAt + startupTimeout.toNanos();
        Exception lastProblem = null;
        while (true) {
            if (!launched.isAlive()) {
                capture.awaitDrained(DRAIN_TIMEOUT);
                int exit = launched.exitValue();
                throw failure("exited with code " + exit + " after " + seconds(elapsedSince(startedAt))
                        + " before it was ready", exit, startedAt, lastProblem, lastProblem);
            }
            try {
                if (readiness.isReady(this)) {
                    return;
                }
                lastProblem = null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                lastProblem = e; // not ready yet; quoted if we time out
            }
            if (Thread.currentThread().isInterrupted()) {
                killTree(launched);
                throw failure("start was interrupted after " + seconds(elapsedSince(startedAt))
                        + "; the process was killed", null, startedAt, lastProblem, lastProblem);
            }
            if (System.nanoTime() - deadline >= 0) {
                killTree(launched);
                throw failure("was not ready after " + seconds(elapsedSince(startedAt)) + " (startup timeout "
                        + seconds(startupTimeout) + "); it was still running and has been killed",
                        null, startedAt, lastProblem, lastProblem);
            }
            LockSupport.parkNanos(READINESS_POLL_NANOS);
        }
    }

    private ServerStartException failure(String what, Integer exitCode, long startedAt, Exception lastProblem,
            Throwable cause) {
        LogCapture capture = log;
        List<String> tail = capture == null ? List.of() : capture.tail();
        StringBuilder message = new StringBuilder()
                .append(name).append(' ').append(what).append('\n')
                .append("  command: ").append(commandLine()).append('\n');
        if (workingDirectory != null) {
            message.append("  working directory: ").append(workingDirectory).append('\n');
        }
        message.append("  waited for: ").append(readiness.description()).append('\n');
        if (lastProblem != null) {
            message.append("  last readiness problem: ").append(lastProblem).append('\n');
        }
        if (capture != null) {
            message.append("  log file: ").append(capture.file()).append(" (deleted on close)\n");
        }
        message.append("  last ").append(tail.size()).append(" log lines:");
        if (tail.isEmpty()) {
            message.append(" (none)");
        }
        for (String line : tail) {
            message.append("\n    | ").append(line);
        }
        return new ServerStartException(message.toString(), exitCode, tail, elapsedSince(startedAt), cause);
    }

    /**
     * Freezes the server and everything it spawned with SIGSTOP and returns once they are stopped.
     * Open connections stay open but nothing is answered. Does nothing if already paused.
     *
     * @throws IllegalStateException if the server is not running
     */
    @Override
    public void pause() {
        lifecycle.lock();
        try {
            if (state == State.PAUSED) {
                return;
            }
            Process running = requireRunning("pause");
            // A server may fork while it is being stopped (PostgreSQL starts a backend per connection): a
            // child forked after the snapshot would escape and keep serving. Stop what is there, look again,
            // and repeat until a look finds no process that is not stopped yet.
            List<ProcessHandle> tree = new java.util.ArrayList<>();
            java.util.Set<Long> stopped = new java.util.HashSet<>();
            for (int round = 0; round < 20; round++) {
                List<ProcessHandle> fresh = new java.util.ArrayList<>();
                for (ProcessHandle p : ProcessTree.snapshot(running.toHandle())) {
                    if (stopped.add(p.pid())) {
                        fresh.add(p);
                    }
                }
                if (fresh.isEmpty()) {
                    break;
                }
                ProcessTree.signal("STOP", fresh);
                tree.addAll(fresh);
            }
            if (!ProcessTree.awaitStopped(tree, SIGNAL_SETTLE_TIMEOUT)) {
                LOG.warn("{}: not every process of {} reported 'stopped' after SIGSTOP", name,
                        ProcessTree.describe(tree));
            }
            state = State.PAUSED;
            LOG.info("{} paused (SIGSTOP to {})", name, ProcessTree.describe(tree));
        } finally {
            lifecycle.unlock();
        }
    }

    /** Thaws a paused server with SIGCONT. Does nothing if it is not paused. */
    @Override
    public void resume() {
        lifecycle.lock();
        try {
            if (state != State.PAUSED) {
                return;
            }
            Process running = process;
            List<ProcessHandle> tree = ProcessTree.snapshot(running.toHandle());
            ProcessTree.signal("CONT", tree);
            state = running.isAlive() ? State.RUNNING : State.STOPPED;
            LOG.info("{} resumed (SIGCONT to {})", name, ProcessTree.describe(tree));
        } finally {
            lifecycle.unlock();
        }
    }

    /** Kills the server and all its descendants with SIGKILL and waits until they are gone. Idempotent. */
    @Override
    public void kill() {
        lifecycle.lock();
        try {
            Process running = process;
            if (running == null) {
                return;
            }
            killTree(running);
            if (state != State.CLOSED) {
                state = State.STOPPED;
            }
        } finally {
            lifecycle.unlock();
        }
    }

    /**
     * Stops the server with its stop signal (SIGTERM unless the builder chose another) to its whole tree
     * (resuming it first if paused, since a stopped process cannot handle the signal), waits up to the stop
     * timeout, then kills what is left. Idempotent.
     */
    @Override
    public void stop() {
        lifecycle.lock();
        try {
            Process running = process;
            if (running == null || !running.isAlive()) {
                if (running != null) {
                    log.awaitDrained(DRAIN_TIMEOUT);
                    state = state == State.CLOSED ? State.CLOSED : State.STOPPED;
                }
                return;
            }
            List<ProcessHandle> tree = ProcessTree.snapshot(running.toHandle());
            if (stopSignal.equals("TERM")) {
                ProcessTree.terminate(tree);
            } else {
                ProcessTree.signal(stopSignal, tree);
            }
            if (state == State.PAUSED) {
                ProcessTree.signal("CONT", tree);
            }
            if (awaitTreeGone(running, tree, stopTimeout)) {
                LOG.info("{} stopped (exit code {})", name, exitCodeOf(running));
            } else {
                LOG.warn("{} did not exit within {} of SIG{}; killing it", name, seconds(stopTimeout), stopSignal);
                killTree(running);
            }
            log.awaitDrained(DRAIN_TIMEOUT);
            state = State.STOPPED;
        } finally {
            lifecycle.unlock();
        }
    }

    /** Stops the server if it runs, then starts it again with the same command (so on the same ports). */
    @Override
    public void restart() {
        lifecycle.lock();
        try {
            requireNotClosed();
            stop();
            start();
        } finally {
            lifecycle.unlock();
        }
    }

    /** Whether the server process is running (a paused server is running). */
    @Override
    public boolean isAlive() {
        Process running = process;
        return running != null && running.isAlive();
    }

    /**
     * Whether the server is paused by {@link #pause()}.
     *
     * @return {@code true} while paused
     */
    public boolean isPaused() {
        return state == State.PAUSED;
    }

    /**
     * The process id of the launched process (the wrapper when run as another user).
     *
     * @return the pid of the latest start
     * @throws IllegalStateException if it was never started
     */
    public long pid() {
        Process running = process;
        if (running == null) {
            throw new IllegalStateException(name + " was never started, so it has no pid");
        }
        return running.pid();
    }

    /**
     * The launched process and all its current descendants, e.g. to find the real server behind a wrapper.
     *
     * @return the handles, the launched process first; empty if never started
     */
    public List<ProcessHandle> processTree() {
        Process running = process;
        return running == null ? List.of() : ProcessTree.snapshot(running.toHandle());
    }

    /**
     * The last lines the server wrote to stdout/stderr over all its runs (with a marker line per start).
     *
     * @return an immutable list, oldest first, at most the configured number of lines
     */
    public List<String> logTail() {
        LogCapture capture = log;
        return capture == null ? List.of() : capture.tail();
    }

    /**
     * The file holding everything the server wrote; deleted by {@link #close()}.
     *
     * @return the log file
     * @throws IllegalStateException if it was never started
     */
    public Path logFile() {
        LogCapture capture = log;
        if (capture == null) {
            throw new IllegalStateException(name + " was never started, so it has no log file yet");
        }
        return capture.file();
    }

    /**
     * Whether a line the server wrote since its latest start matches {@code pattern}; what
     * {@link ReadinessCheck#logLineMatches(String)} uses.
     *
     * @param pattern searched with {@link java.util.regex.Matcher#find()}
     * @return {@code true} if some line matches
     */
    public boolean logHasLineMatching(Pattern pattern) {
        Objects.requireNonNull(pattern, "pattern");
        LogCapture capture = log;
        return capture != null && capture.hasLineMatchingSince(runLogOffset, pattern);
    }

    /**
     * The name used in messages, e.g. "redis-server on 127.0.0.1:6390".
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The server command as given (without a {@code runuser} wrapper).
     *
     * @return an immutable list
     */
    public List<String> command() {
        return command;
    }

    /** Kills the process tree and deletes the log directory and the directories registered for deletion. */
    @Override
    public void close() {
        lifecycle.lock();
        try {
            if (state == State.CLOSED) {
                return;
            }
            try {
                kill();
            } finally {
                state = State.CLOSED;
                LiveProcesses.unregister(this);
                deleteDirectories();
            }
        } finally {
            lifecycle.unlock();
        }
    }

    /** Called by the shutdown hook: no lock, since the lock holder may be what is stuck. */
    void killForShutdown() {
        Process running = process;
        if (running != null && running.isAlive()) {
            ProcessTree.kill(running.toHandle());
        }
        deleteDirectories();
    }

    private void killTree(Process running) {
        List<ProcessHandle> before = ProcessTree.snapshot(running.toHandle());
        ProcessTree.kill(running.toHandle());
        if (!awaitTreeGone(running, before, KILL_TIMEOUT)) {
            LOG.warn("{}: processes {} survived SIGKILL for {}", name, ProcessTree.describe(before),
                    seconds(KILL_TIMEOUT));
        }
        LogCapture capture = log;
        if (capture != null) {
            capture.awaitDrained(DRAIN_TIMEOUT);
        }
    }

    /**
     * Waits until the launched process has been reaped (so {@link Process#isAlive()} is false and a new
     * start is allowed) and every other process of the tree is gone.
     */
    private static boolean awaitTreeGone(Process running, List<ProcessHandle> tree, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            if (!running.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return ProcessTree.awaitGone(tree, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }

    private void deleteDirectories() {
        List<Path> all = new ArrayList<>(deleteOnClose);
        if (tempDirectory != null) {
            all.add(tempDirectory);
        }
        for (Path dir : all) {
            deleteRecursively(dir);
        }
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // best effort: a leftover temp directory must not fail a test that passed
            LOG.warn("could not delete {}: {}", root, e.toString());
        }
    }

    private Process requireRunning(String operation) {
        requireNotClosed();
        Process running = process;
        if (running == null || !running.isAlive() || state == State.STOPPED) {
            throw new IllegalStateException("cannot " + operation + " " + name + ": it is not running");
        }
        return running;
    }

    private void requireNotClosed() {
        if (state == State.CLOSED) {
            throw new IllegalStateException(name + " is closed; build a new ServerProcess to start it again");
        }
    }

    private static String exitCodeOf(Process process) {
        try {
            return Integer.toString(process.exitValue());
        } catch (IllegalThreadStateException e) {
            return "unknown";
        }
    }

    /** The launched command line, shell-quoted, for messages. */
    String commandLine() {
        return launchedCommand.stream().map(RunAsUser::shellQuote).collect(Collectors.joining(" "));
    }

    private static Duration elapsedSince(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.2f s", duration.toNanos() / 1e9);
    }

    @Override
    public String toString() {
        return "ServerProcess[" + name + ", " + state + (process == null ? "" : ", pid " + process.pid()) + "]";
    }

    /**
     * Describes a {@link ServerProcess}. Not thread-safe; build on one thread.
     */
    public static final class Builder {

        private List<String> command;
        private String name;
        private Path workingDirectory;
        private final Map<String, String> environment = new LinkedHashMap<>();
        private String runAsUser;
        private ReadinessCheck readiness;
        private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
        private Duration stopTimeout = DEFAULT_STOP_TIMEOUT;
        private String stopSignal = "TERM";
        private int logTailLines = DEFAULT_LOG_TAIL_LINES;
        private final List<Path> deleteOnClose = new ArrayList<>();

        private Builder() {
        }

        /**
         * The executable and its arguments; the server must stay in the foreground.
         *
         * @param command executable first, e.g. {@code "redis-server", "--port", "6390"}
         * @return this builder
         */
        public Builder command(String... command) {
            return command(command == null ? null : List.of(command));
        }

        /**
         * The executable and its arguments; the server must stay in the foreground.
         *
         * @param command executable first; no element may be null
         * @return this builder
         */
        public Builder command(List<String> command) {
            if (command == null || command.isEmpty() || command.get(0) == null || command.get(0).isBlank()) {
                throw new IllegalArgumentException(
                        "command must start with an executable, e.g. [redis-server, --port, 6390]; was " + command);
            }
            if (command.stream().anyMatch(Objects::isNull)) {
                throw new IllegalArgumentException("command arguments must not be null, was " + command);
            }
            this.command = List.copyOf(command);
            return this;
        }

        /**
         * The name used in log lines and failure messages; defaults to the executable's file name.
         *
         * @param name e.g. "redis-server on 127.0.0.1:6390"
         * @return this builder
         */
        public Builder name(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("name must be a non-blank text, was '" + name + "'");
            }
            this.name = name;
            return this;
        }

        /**
         * The directory the server runs in; defaults to this JVM's working directory.
         *
         * @param directory an existing directory
         * @return this builder
         */
        public Builder workingDirectory(Path directory) {
            if (directory == null || !Files.isDirectory(directory)) {
                throw new IllegalArgumentException("working directory must be an existing directory, was " + directory);
            }
            this.workingDirectory = directory;
            return this;
        }

        /**
         * Adds or overrides one environment variable of the server (the JVM's environment is inherited).
         *
         * @param variable the name
         * @param value the value
         * @return this builder
         */
        public Builder environment(String variable, String value) {
            if (variable == null || variable.isEmpty() || variable.contains("=")) {
                throw new IllegalArgumentException(
                        "environment variable name must be non-empty and contain no '=', was '" + variable + "'");
            }
            if (value == null) {
                throw new IllegalArgumentException("value of environment variable " + variable + " must not be null");
            }
            environment.put(variable, value);
            return this;
        }

        /**
         * Adds or overrides environment variables of the server.
         *
         * @param variables names to values
         * @return this builder
         */
        public Builder environment(Map<String, String> variables) {
            Objects.requireNonNull(variables, "variables").forEach(this::environment);
            return this;
        }

        /**
         * Runs the server as {@code user} when this JVM is root (with {@code runuser}, else {@code su}); for
         * servers that refuse to run as root. Ignored, with a log line, when the JVM is not root.
         *
         * @param user e.g. {@code postgres}
         * @return this builder
         */
        public Builder runAsUser(String user) {
            RunAsUser.requireValidUser(user);
            this.runAsUser = user;
            return this;
        }

        /**
         * What "ready" means; required.
         *
         * @param readiness e.g. {@link ReadinessCheck#tcpPortOpen(int)}
         * @return this builder
         */
        public Builder readiness(ReadinessCheck readiness) {
            this.readiness = Objects.requireNonNull(readiness, "readiness");
            return this;
        }

        /**
         * How long {@link #start()} waits for readiness; default {@link #DEFAULT_STARTUP_TIMEOUT}.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder startupTimeout(Duration timeout) {
            this.startupTimeout = requirePositive("startup timeout", timeout);
            return this;
        }

        /**
         * The signal {@link #stop()} sends first: {@code TERM} (the default), {@code INT}, {@code QUIT} or
         * {@code HUP}. PostgreSQL wants {@code INT}: its SIGTERM is a "smart" shutdown that waits for every client
         * to disconnect, and a client pool that reconnects keeps it waiting until the stop timeout kills it (which
         * leaves its lock file and shared memory behind, so the restart fails); SIGINT is its "fast" shutdown, which
         * ends the sessions and shuts down cleanly.
         *
         * @param signal a signal name without the {@code SIG} prefix
         * @return this builder
         */
        public Builder stopSignal(String signal) {
            if (!java.util.Set.of("TERM", "INT", "QUIT", "HUP").contains(signal)) {
                throw new IllegalArgumentException("stop signal must be TERM, INT, QUIT or HUP, was '" + signal + "'");
            }
            this.stopSignal = signal;
            return this;
        }

        /**
         * How long {@link #stop()} waits after the stop signal before SIGKILL; default {@link #DEFAULT_STOP_TIMEOUT}.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder stopTimeout(Duration timeout) {
            this.stopTimeout = requirePositive("stop timeout", timeout);
            return this;
        }

        /**
         * How many of the last log lines to keep in memory; default {@value #DEFAULT_LOG_TAIL_LINES}.
         *
         * @param lines 1 to 10000
         * @return this builder
         */
        public Builder logTailLines(int lines) {
            if (lines < 1 || lines > 10_000) {
                throw new IllegalArgumentException("log tail lines must be between 1 and 10000, was " + lines);
            }
            this.logTailLines = lines;
            return this;
        }

        /**
         * A directory the fixture created for this server (e.g. a data directory) that {@link #close()}
         * deletes, best effort.
         *
         * @param directory the directory
         * @return this builder
         */
        public Builder deleteOnClose(Path directory) {
            deleteOnClose.add(Objects.requireNonNull(directory, "directory"));
            return this;
        }

        /**
         * Makes the (not yet started) process.
         *
         * @return the process
         * @throws IllegalArgumentException if no command or readiness check was given
         */
        public ServerProcess build() {
            if (command == null) {
                throw new IllegalArgumentException("a command is required: call command(...) before build()");
            }
            if (readiness == null) {
                throw new IllegalArgumentException("a readiness check is required, e.g. "
                        + "readiness(ReadinessCheck.tcpPortOpen(port)) or ReadinessCheck.logLineMatches(regex)");
            }
            return new ServerProcess(this);
        }

        /**
         * Builds and starts the process; if the start fails the process is closed (its log tail is in the
         * exception) and the exception rethrown.
         *
         * @return the running, ready process
         * @throws ServerStartException if it does not start
         */
        public ServerProcess start() {
            ServerProcess server = build();
            try {
                server.start();
                return server;
            } catch (RuntimeException e) {
                server.close();
                throw e;
            }
        }

        private static Duration requirePositive(String what, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(what + " must be a positive duration, was " + value);
            }
            return value;
        }
    }
}
