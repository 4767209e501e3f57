package io.latchkey.cli;

import io.latchkey.BackendUnavailableException;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.LockTimeoutException;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code latchkey exec}: runs a command while holding a lock, like {@code flock}, for any backend.
 *
 * <p>Sequence on the main thread: install signal handlers → connect → one synchronous attempt, then, if the
 * lock is held, an asynchronous wait (so that a signal can abandon it by cancelling a future rather than
 * interrupting a thread that may be inside a database driver) → start the command with {@code LATCHKEY_NAME}/{@code LATCHKEY_TOKEN} → wait for it → release → exit with
 * its status. The core renews the lease meanwhile. Two other threads act on the command: the JVM's signal
 * threads forward signals ({@link SignalRelay}), and the core's callback thread stops the command when the
 * lock is lost ({@link #stopOnLoss}). They share only volatile/atomic state; the lock is released by the
 * main thread alone, after the command has exited, so a second run never starts while this one still runs.
 */
@Command(
        name = "exec",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        customSynopsis = {
            "latchkey exec -n NAME [-w DURATION | --no-wait | --leader] [-l DURATION] [-g DURATION]",
            "                     [-E N] [-q | -v] [-b URI] [-s KEY=VALUE]...",
            "                     -- COMMAND [ARG...]"
        },
        description = {
            "Runs COMMAND while holding the lock NAME, renewing it, like flock(1) for every backend. "
                    + "The command gets LATCHKEY_NAME and LATCHKEY_TOKEN (the fencing token) in its environment. "
                    + "If the lock is lost, the command gets SIGTERM, then SIGKILL after the grace period. "
                    + "SIGTERM, SIGINT and SIGHUP sent to latchkey are forwarded to the command; the lock is released "
                    + "once it has exited.",
            ""
        },
        footerHeading = "%nExit status:%n",
        footer = {
            "  the command's own status (128+N if signal N ended it), or",
            "  64  usage error: bad option, duration, URI, scheme, setting or name, or no JDBC driver (nothing held)",
            "  69  backend unavailable",
            "  75  lock not acquired within the wait (change with -E)",
            "  79  the lock was lost while the command ran; the command was stopped",
            "  126 / 127  the command could not be executed / was not found",
            "",
            "Example: latchkey exec --name nightly-report --wait 30s -- ./report.sh --full",
            "         latchkey exec --leader --name scheduler -- ./scheduler.sh"
        })
public final class ExecCommand implements Callable<Integer> {
    static final String MISSING_END_OF_OPTIONS =
            "missing '--' before the command; type: latchkey exec --name NAME [--wait 30s] -- COMMAND [ARG...]";
    private static final Duration FOREVER = Duration.ofDays(365L * 100);

    @Spec
    CommandSpec spec;

    @Option(
            names = {"-n", "--name"},
            required = true,
            paramLabel = "NAME",
            converter = LockNameConverter.class,
            description = "The lock's name: 1-255 UTF-8 bytes without control characters.")
    String name;

    @Option(
            names = {"-w", "--wait"},
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "Wait at most this long for the lock (500ms, 30s, 2m, 1h). Default: wait until acquired, as flock does.")
    Duration wait;

    @Option(names = "--no-wait", description = "Give up at once if the lock is held (flock -n).")
    boolean noWait;

    @Option(
            names = {"-l", "--lease"},
            paramLabel = "DURATION",
            defaultValue = "30s",
            converter = DurationConverter.class,
            description =
                    "Lease of the grant, renewed every third of it while the command runs (default: ${DEFAULT-VALUE}). "
                            + "If latchkey dies, others can take the lock after at most this long.")
    Duration lease;

    @Option(
            names = {"-g", "--grace"},
            paramLabel = "DURATION",
            defaultValue = "10s",
            converter = DurationConverter.class,
            description = "After the lock is lost: time between SIGTERM and SIGKILL (default: ${DEFAULT-VALUE}).")
    Duration grace;

    @Option(
            names = {"-E", "--conflict-exit-code"},
            paramLabel = "N",
            defaultValue = "" + ExitCodes.NOT_ACQUIRED,
            description = "Exit status when the lock is not acquired (0-255, default: ${DEFAULT-VALUE}), as flock -E.")
    int conflictExitCode;

    @Option(
            names = "--leader",
            description = "Leader mode: stay in the election for NAME and run the command each time this instance is "
                    + "elected (LATCHKEY_TOKEN is the term's fencing token); stop it when leadership is lost; run "
                    + "until SIGTERM/SIGINT. A command that exits by itself hands leadership over.")
    boolean leader;

    @Option(
            names = {"-q", "--quiet"},
            description = "Say nothing when the lock is not acquired (the exit status tells).")
    boolean quiet;

    @Option(
            names = {"-v", "--verbose"},
            description = "Say on stderr when waiting for, acquiring and releasing the lock.")
    boolean verbose;

    @Mixin
    BackendOptions backend;

    @Parameters(paramLabel = "COMMAND", arity = "1..*", description = "The command and its arguments, after '--'.")
    List<String> command;

    private final AtomicReference<LockLoss> loss = new AtomicReference<>();

    @Override
    public Integer call() {
        validate();
        LockOptions options = LockOptions.builder().lease(lease).build();
        PrintWriter err = spec.commandLine().getErr();
        try (SignalRelay signals = SignalRelay.install()) {
            return run(options, signals, err);
        }
    }

    private void validate() {
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        if (!args.contains("--")) {
            throw new ParameterException(spec.commandLine(), MISSING_END_OF_OPTIONS);
        }
        if (noWait && wait != null) {
            throw new ParameterException(
                    spec.commandLine(), "--wait and --no-wait exclude each other; give one of them");
        }
        if (conflictExitCode < 0 || conflictExitCode > 255) {
            throw new ParameterException(
                    spec.commandLine(), "--conflict-exit-code must be 0-255, was " + conflictExitCode);
        }
        if (leader && (noWait || wait != null)) {
            throw new ParameterException(
                    spec.commandLine(), "--leader waits for leadership without limit: drop --wait/--no-wait");
        }
        if (grace.isZero() || grace.isNegative()) {
            throw new ParameterException(
                    spec.commandLine(), "--grace must be positive, was " + grace + "; for example 10s");
        }
    }

    private int run(LockOptions options, SignalRelay signals, PrintWriter err) {
        try (LockClient client = backend.connect()) {
            if (signals.signalled()) {
                return signals.signalStatus();
            }
            if (leader) {
                return new LeaderRun(client, name, options, grace, command, signals, err, verbose).run();
            }
            DistributedLock lock = client.lock(name, options);
            LockHandle handle = acquire(client, lock, signals, err);
            if (handle == null) {
                if (signals.signalled()) {
                    return signals.signalStatus();
                }
                if (!quiet) {
                    err.println("latchkey exec: lock '" + name + "' not acquired "
                            + (noWait ? "(--no-wait)" : "within " + DurationConverter.format(wait)) + holder(client)
                            + " on " + client.backend());
                }
                return conflictExitCode;
            }
            if (verbose) {
                err.println("latchkey exec: acquired lock '" + name + "' (token " + handle.fencingToken() + ") on "
                        + client.backend());
                err.flush();
            }
            return runHolding(client, handle, signals, err);
        }
    }

    /** The handle, or null if not acquired within the wait or a signal came first. */
    private LockHandle acquire(LockClient client, DistributedLock lock, SignalRelay signals, PrintWriter err) {
        // one quick attempt first: the common case (lock free) needs no second thread, and --verbose can
        // say that it is about to wait
        Optional<LockHandle> first = SharedFileRetry.call(backend.uri(), "acquiring", lock::tryAcquire);
        if (first.isPresent() || noWait) {
            return first.orElse(null);
        }
        if (verbose) {
            err.println(
                    "latchkey exec: waiting " + (wait != null ? "up to " + DurationConverter.format(wait) + " " : "")
                            + "for lock '" + name + "'" + holder(client));
            err.flush();
        }
        // asynchronous, so that a signal can abandon the wait without interrupting a thread that may be
        // inside a database driver
        CompletableFuture<LockHandle> attempt = lock.acquireAsync(wait != null ? wait : FOREVER);
        CompletableFuture.anyOf(attempt, signals.stopped())
                .exceptionally(e -> null)
                .join();
        if (signals.signalled()) {
            attempt.cancel(true);
            // a grant that won the race with the signal is given back at once
            attempt.thenAccept(LockHandle::close);
            return null;
        }
        try {
            return attempt.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (cause instanceof LockTimeoutException) {
                return null;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw e;
        }
    }

    private int runHolding(LockClient client, LockHandle handle, SignalRelay signals, PrintWriter err) {
        if (signals.signalled()) {
            handle.release();
            return signals.signalStatus();
        }
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        pb.environment().put("LATCHKEY_NAME", name);
        pb.environment().put("LATCHKEY_TOKEN", Long.toString(handle.fencingToken()));
        Process child;
        try {
            child = pb.start();
        } catch (IOException e) {
            handle.close();
            String why = String.valueOf(e.getMessage());
            boolean notFound = why.contains("error=2,") || why.contains("No such file");
            err.println("latchkey exec: cannot run '" + command.get(0) + "': " + (notFound ? "command not found" : why)
                    + "; the lock was released");
            return notFound ? ExitCodes.COMMAND_NOT_FOUND : ExitCodes.CANNOT_EXECUTE;
        }
        signals.attach(child);
        Thread guard = new Thread(
                () -> {
                    // the JVM is exiting while the command runs (not through our signal handlers): do not leave it
                    // running without the lock
                    ChildProcesses.terminateTree(child, Duration.ofSeconds(1));
                    client.close();
                },
                "latchkey-exec-exit-guard");
        Runtime.getRuntime().addShutdownHook(guard);
        handle.onLost(l -> stopOnLoss(child, l, err));
        int status = ChildProcesses.waitFor(child);
        try {
            Runtime.getRuntime().removeShutdownHook(guard);
        } catch (IllegalStateException shuttingDown) {
            // already exiting: the guard runs, the child has exited anyway
        }
        LockLoss lost = loss.get();
        if (lost != null) {
            err.println("latchkey exec: the command was stopped because lock '" + name + "' was lost (" + lost.reason()
                    + "); it exited with status " + status);
            err.flush();
            return ExitCodes.LOCK_LOST;
        }
        try {
            boolean released = SharedFileRetry.call(backend.uri(), "releasing", handle::release);
            if (verbose) {
                err.println("latchkey exec: command exited with status " + status + "; lock '" + name + "' "
                        + (released ? "released" : "was no longer held"));
            }
        } catch (BackendUnavailableException e) {
            err.println("latchkey exec: could not release lock '" + name + "' (" + UsageErrors.oneLine(e.getMessage())
                    + "); it expires by its lease within " + DurationConverter.format(lease));
        }
        return status;
    }

    private void stopOnLoss(Process child, LockLoss lost, PrintWriter err) {
        if (!child.isAlive() || lost.reason() == LockLoss.Reason.CLIENT_CLOSED) {
            return; // the command had finished: nothing ran without the lock
        }
        loss.set(lost);
        err.println(
                "latchkey exec: lost lock '" + name + "' (" + lost.reason() + ": " + UsageErrors.oneLine(lost.detail())
                        + "); stopping the command: SIGTERM now, SIGKILL after " + DurationConverter.format(grace));
        err.flush();
        ChildProcesses.terminateTree(child, grace);
    }

    private String holder(LockClient client) {
        try {
            Optional<LockInfo> info = client.inspect(name);
            return info.map(i -> ": held by " + i.owner() + " (token " + i.fencingToken() + ")")
                    .orElse("");
        } catch (RuntimeException e) {
            return "";
        }
    }
}
