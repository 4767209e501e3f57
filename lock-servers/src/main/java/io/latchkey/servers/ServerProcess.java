package io.latchkey.servers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
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
 * every directory passed to {@link ServerProcessBuilder#deleteOnClose(Path)}. A JVM shutdown hook kills every server
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
    private static final Duration DRAIN_TIMEOUT = ProcessLaunch.DRAIN_TIMEOUT;

    private enum State {
        NEW,
        STARTING,
        RUNNING,
        PAUSED,
        STOPPED,
        CLOSED
    }

    private final String name;
    private final List<String> command;
    private final ProcessLaunch launch;
    private final Duration stopTimeout;
    private final String stopSignal;
    private final int logTailLines;
    private final List<Path> deleteOnClose;

    private final ReentrantLock lifecycle = new ReentrantLock();
    private volatile State state = State.NEW;
    private volatile Process process;
    private volatile LogCapture log;
    private volatile long runLogOffset;
    private int starts;

    ServerProcess(ServerProcessBuilder builder) {
        this.command = List.copyOf(builder.command);
        this.name = builder.name != null
                ? builder.name
                : Path.of(command.get(0)).getFileName().toString();
        String runAsUser = builder.runAsUser;
        List<String> launchedCommand = runAsUser == null ? command : RunAsUser.wrap(runAsUser, command);
        this.launch = new ProcessLaunch(
                name,
                launchedCommand,
                builder.workingDirectory,
                builder.environment,
                builder.readiness,
                builder.startupTimeout);
        this.stopTimeout = builder.stopTimeout;
        this.stopSignal = builder.stopSignal;
        this.logTailLines = builder.logTailLines;
        this.deleteOnClose = List.copyOf(builder.deleteOnClose);
        if (runAsUser != null && launchedCommand.equals(command) && !runAsUser.equals(RunAsUser.currentUser())) {
            LOG.info(
                    "{}: not running as '{}' because this JVM is not root; running as '{}'",
                    name,
                    runAsUser,
                    RunAsUser.currentUser());
        }
    }

    /**
     * Starts describing a server process: a new builder.
     *
     * @return a new builder
     */
    public static ServerProcessBuilder builder() {
        return new ServerProcessBuilder();
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
            Process launched = launch.launch(capture, startedAt);
            process = launched;
            LiveProcesses.register(this);
            launch.awaitReady(this, launched, capture, startedAt, this::killTree);
            state = State.RUNNING;
            LOG.info(
                    "{} is ready (pid {}) after {}",
                    name,
                    launched.pid(),
                    ProcessLaunch.seconds(ProcessLaunch.elapsedSince(startedAt)));
        } finally {
            if (state == State.STARTING) {
                state = State.STOPPED;
            }
            lifecycle.unlock();
        }
    }

    private LogCapture prepareLog() {
        if (log == null) {
            log = LogCapture.inTemporaryDirectory(name, logTailLines);
        }
        return log;
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
            List<ProcessHandle> tree = ProcessTree.freeze(name, running.toHandle());
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
            if (ProcessTree.signalAndAwait(running, stopSignal, state == State.PAUSED, stopTimeout)) {
                LOG.info("{} stopped (exit code {})", name, ProcessLaunch.exitCodeOf(running));
            } else {
                LOG.warn(
                        "{} did not exit within {} of SIG{}; killing it",
                        name,
                        ProcessLaunch.seconds(stopTimeout),
                        stopSignal);
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
     * Whether the server is paused by {@link #pause()}: {@code true} while paused.
     *
     * @return whether it is paused
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
     * The name used in messages, e.g. "redis-server on 127.0.0.1:6390": the name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The server command as given (without a {@code runuser} wrapper): an immutable list.
     *
     * @return the command
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
        ProcessTree.killAndDrain(name, running, log);
    }

    private void deleteDirectories() {
        deleteOnClose.forEach(Directories::deleteQuietly);
        LogCapture capture = log;
        if (capture != null) {
            Directories.deleteQuietly(capture.file().getParent());
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

    /** The launched command line, shell-quoted, for messages. */
    String commandLine() {
        return launch.commandLine();
    }

    @Override
    public String toString() {
        return "ServerProcess[" + name + ", " + state + (process == null ? "" : ", pid " + process.pid()) + "]";
    }
}
