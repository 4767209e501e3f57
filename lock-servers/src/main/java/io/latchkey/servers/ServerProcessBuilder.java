package io.latchkey.servers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Describes a {@link ServerProcess}: the command, what "ready" means, timeouts and the directories to delete on
 * close. Obtained from {@link ServerProcess#builder()}.
 *
 * <p>Not thread-safe; build on one thread. The process copies everything it needs, so a builder may be reused.
 */
public final class ServerProcessBuilder {

    List<String> command;
    String name;
    Path workingDirectory;
    final Map<String, String> environment = new LinkedHashMap<>();
    String runAsUser;
    ReadinessCheck readiness;
    Duration startupTimeout = ServerProcess.DEFAULT_STARTUP_TIMEOUT;
    Duration stopTimeout = ServerProcess.DEFAULT_STOP_TIMEOUT;
    String stopSignal = "TERM";
    int logTailLines = ServerProcess.DEFAULT_LOG_TAIL_LINES;
    final List<Path> deleteOnClose = new ArrayList<>();

    ServerProcessBuilder() {}

    /**
     * The executable and its arguments; the server must stay in the foreground.
     *
     * @param command executable first, e.g. {@code "redis-server", "--port", "6390"}
     * @return this builder
     */
    public ServerProcessBuilder command(String... command) {
        return command(command == null ? null : List.of(command));
    }

    /**
     * The executable and its arguments; the server must stay in the foreground.
     *
     * @param command executable first; no element may be null
     * @return this builder
     */
    public ServerProcessBuilder command(List<String> command) {
        if (command == null
                || command.isEmpty()
                || command.get(0) == null
                || command.get(0).isBlank()) {
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
    public ServerProcessBuilder name(String name) {
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
    public ServerProcessBuilder workingDirectory(Path directory) {
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
    public ServerProcessBuilder environment(String variable, String value) {
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
    public ServerProcessBuilder environment(Map<String, String> variables) {
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
    public ServerProcessBuilder runAsUser(String user) {
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
    public ServerProcessBuilder readiness(ReadinessCheck readiness) {
        this.readiness = Objects.requireNonNull(readiness, "readiness");
        return this;
    }

    /**
     * How long {@link ServerProcess#start()} waits for readiness; default {@link ServerProcess#DEFAULT_STARTUP_TIMEOUT}.
     *
     * @param timeout positive
     * @return this builder
     */
    public ServerProcessBuilder startupTimeout(Duration timeout) {
        this.startupTimeout = requirePositive("startup timeout", timeout);
        return this;
    }

    /**
     * The signal {@link ServerProcess#stop()} sends first: {@code TERM} (the default), {@code INT}, {@code QUIT} or
     * {@code HUP}. PostgreSQL wants {@code INT}: its SIGTERM is a "smart" shutdown that waits for every client
     * to disconnect, and a client pool that reconnects keeps it waiting until the stop timeout kills it (which
     * leaves its lock file and shared memory behind, so the restart fails); SIGINT is its "fast" shutdown, which
     * ends the sessions and shuts down cleanly.
     *
     * @param signal a signal name without the {@code SIG} prefix
     * @return this builder
     */
    public ServerProcessBuilder stopSignal(String signal) {
        if (!Set.of("TERM", "INT", "QUIT", "HUP").contains(signal)) {
            throw new IllegalArgumentException("stop signal must be TERM, INT, QUIT or HUP, was '" + signal + "'");
        }
        this.stopSignal = signal;
        return this;
    }

    /**
     * How long {@link ServerProcess#stop()} waits after the stop signal before SIGKILL; default {@link ServerProcess#DEFAULT_STOP_TIMEOUT}.
     *
     * @param timeout positive
     * @return this builder
     */
    public ServerProcessBuilder stopTimeout(Duration timeout) {
        this.stopTimeout = requirePositive("stop timeout", timeout);
        return this;
    }

    /**
     * How many of the last log lines to keep in memory; default {@value ServerProcess#DEFAULT_LOG_TAIL_LINES}.
     *
     * @param lines 1 to 10000
     * @return this builder
     */
    public ServerProcessBuilder logTailLines(int lines) {
        if (lines < 1 || lines > 10_000) {
            throw new IllegalArgumentException("log tail lines must be between 1 and 10000, was " + lines);
        }
        this.logTailLines = lines;
        return this;
    }

    /**
     * A directory the fixture created for this server (e.g. a data directory) that {@link ServerProcess#close()}
     * deletes, best effort.
     *
     * @param directory the directory
     * @return this builder
     */
    public ServerProcessBuilder deleteOnClose(Path directory) {
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
