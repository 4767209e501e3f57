package io.latchkey.servers;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One launch of a {@link ServerProcess}: the command line it runs, the wait for its readiness check, and the
 * failure report (command, elapsed time, last readiness problem, log tail) when it does not become ready.
 *
 * <p>Immutable; the process's lifecycle lock serialises launches, so no state of a run lives here.
 */
final class ProcessLaunch {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessLaunch.class);
    private static final long READINESS_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(2);

    private final String name;
    private final List<String> launchedCommand;
    private final Path workingDirectory;
    private final Map<String, String> environment;
    private final ReadinessCheck readiness;
    private final Duration startupTimeout;

    ProcessLaunch(
            String name,
            List<String> launchedCommand,
            Path workingDirectory,
            Map<String, String> environment,
            ReadinessCheck readiness,
            Duration startupTimeout) {
        this.name = name;
        this.launchedCommand = List.copyOf(launchedCommand);
        this.workingDirectory = workingDirectory;
        this.environment = Map.copyOf(environment);
        this.readiness = readiness;
        this.startupTimeout = startupTimeout;
    }

    /** Starts the command with its output pumped into {@code capture}. */
    Process launch(LogCapture capture, long startedAt) {
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
            throw failure("could not be launched: " + e.getMessage(), null, startedAt, null, e, capture);
        }
        capture.startPumping(launched.getInputStream(), "latchkey-log-" + name + "-" + launched.pid());
        LOG.debug("launched {} as pid {}: {}", name, launched.pid(), commandLine());
        return launched;
    }

    /**
     * Polls the readiness check until it passes; kills the tree (with {@code killTree}) and throws when the
     * process exits, the start is interrupted or the startup timeout passes.
     */
    void awaitReady(
            ServerProcess server, Process launched, LogCapture capture, long startedAt, Consumer<Process> killTree) {
        long deadline = startedAt + startupTimeout.toNanos();
        Exception lastProblem = null;
        while (true) {
            if (!launched.isAlive()) {
                capture.awaitDrained(DRAIN_TIMEOUT);
                int exit = launched.exitValue();
                throw failure(
                        "exited with code " + exit + " after " + seconds(elapsedSince(startedAt))
                                + " before it was ready",
                        exit,
                        startedAt,
                        lastProblem,
                        lastProblem,
                        capture);
            }
            try {
                if (readiness.isReady(server)) {
                    return;
                }
                lastProblem = null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                lastProblem = e; // not ready yet; quoted if we time out
            }
            if (Thread.currentThread().isInterrupted()) {
                killTree.accept(launched);
                throw failure(
                        "start was interrupted after " + seconds(elapsedSince(startedAt)) + "; the process was killed",
                        null,
                        startedAt,
                        lastProblem,
                        lastProblem,
                        capture);
            }
            if (System.nanoTime() - deadline >= 0) {
                killTree.accept(launched);
                throw failure(
                        "was not ready after " + seconds(elapsedSince(startedAt)) + " (startup timeout "
                                + seconds(startupTimeout) + "); it was still running and has been killed",
                        null,
                        startedAt,
                        lastProblem,
                        lastProblem,
                        capture);
            }
            LockSupport.parkNanos(READINESS_POLL_NANOS);
        }
    }

    private ServerStartException failure(
            String what, Integer exitCode, long startedAt, Exception lastProblem, Throwable cause, LogCapture capture) {
        List<String> tail = capture == null ? List.of() : capture.tail();
        StringBuilder message = new StringBuilder()
                .append(name)
                .append(' ')
                .append(what)
                .append('\n')
                .append("  command: ")
                .append(commandLine())
                .append('\n');
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

    /** The launched command line, shell-quoted, for messages. */
    String commandLine() {
        return launchedCommand.stream().map(RunAsUser::shellQuote).collect(Collectors.joining(" "));
    }

    static String exitCodeOf(Process process) {
        try {
            return Integer.toString(process.exitValue());
        } catch (IllegalThreadStateException e) {
            return "unknown";
        }
    }

    static Duration elapsedSince(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.2f s", duration.toNanos() / 1e9);
    }
}
