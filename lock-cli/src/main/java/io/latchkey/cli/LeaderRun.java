package io.latchkey.cli;

import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ElectionListener;
import io.latchkey.recipes.Elector;
import io.latchkey.recipes.Revocation;
import io.latchkey.recipes.Term;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/*
 * latchkey exec --leader: stays in the election for NAME and runs the command each time this instance is elected.
 *
 * The main thread owns the loop: wait for leadership in short slices (so a signal ends the wait), start the command
 * with LATCHKEY_NAME and LATCHKEY_TOKEN (the term's fencing token), wait for it. The elector's listener runs on the
 * core's thread and only stops the running command when its term is revoked (SIGTERM, SIGKILL after the grace). A
 * command that exits by itself while this instance still leads ends the term: the elector relinquishes, so another
 * instance runs the command next, and this one re-enters after its back-off (the lease). Signals end the loop:
 * forwarded to a running command, then the elector is closed (the term released) and latchkey exits 128+N.
 */
final class LeaderRun {
    private static final Duration SLICE = Duration.ofMillis(200);

    private final LockClient client;
    private final String name;
    private final LockOptions options;
    private final Duration grace;
    private final List<String> command;
    private final SignalRelay signals;
    private final PrintWriter err;
    private final boolean verbose;
    private final AtomicReference<Process> running = new AtomicReference<>();

    LeaderRun(
            LockClient client,
            String name,
            LockOptions options,
            Duration grace,
            List<String> command,
            SignalRelay signals,
            PrintWriter err,
            boolean verbose) {
        this.client = client;
        this.name = name;
        this.options = options;
        this.grace = grace;
        this.command = command;
        this.signals = signals;
        this.err = err;
        this.verbose = verbose;
    }

    int run() {
        try (Elector elector = Elector.builder(client, name)
                .options(options)
                .listener(new StopOnRevocation(), Runnable::run)
                .build()
                .start()) {
            say("in the election for '" + name + "' on " + client.backend());
            while (!signals.signalled()) {
                Optional<Term> term = awaitTerm(elector);
                if (term.isEmpty()) {
                    continue;
                }
                Integer failed = runCommand(term.get());
                if (failed != null) {
                    return failed;
                }
                if (!signals.signalled() && term.get().isCurrent()) {
                    say("the command exited while leading; stepping down so that another instance runs it");
                    elector.relinquish();
                }
            }
        }
        return signals.signalStatus();
    }

    private Optional<Term> awaitTerm(Elector elector) {
        try {
            return elector.awaitLeadership(SLICE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Runs the command for one term; null when it ran, else the exit status to end with. */
    private Integer runCommand(Term term) {
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        pb.environment().put("LATCHKEY_NAME", name);
        pb.environment().put("LATCHKEY_TOKEN", Long.toString(term.fencingToken()));
        Process child;
        try {
            child = pb.start();
        } catch (IOException e) {
            String why = String.valueOf(e.getMessage());
            boolean notFound = why.contains("error=2,") || why.contains("No such file");
            err.println("latchkey exec: cannot run '" + command.get(0) + "': " + (notFound ? "command not found" : why)
                    + "; leaving the election");
            err.flush();
            return notFound ? ExitCodes.COMMAND_NOT_FOUND : ExitCodes.CANNOT_EXECUTE;
        }
        running.set(child);
        say("elected for '" + name + "' (token " + term.fencingToken() + "); running the command");
        if (!term.isCurrent()) {
            ChildProcesses.terminateTree(child, grace); // revoked before the listener could see the child
        }
        signals.attach(child);
        int status = ChildProcesses.waitFor(child);
        running.set(null);
        say("the command exited with status " + status);
        return null;
    }

    private void say(String what) {
        if (verbose) {
            err.println("latchkey exec: " + what);
            err.flush();
        }
    }

    /** Stops the running command when its term ends (on the elector's listener thread). */
    private final class StopOnRevocation implements ElectionListener {
        @Override
        public void onRevoked(Term term, Revocation why) {
            Process child = running.get();
            if (child == null || !child.isAlive() || why.reason() != Revocation.Reason.LOST) {
                return;
            }
            err.println("latchkey exec: lost the leadership of '" + name + "' ("
                    + why.lossReport()
                            .map(l -> l.reason() + ": " + UsageErrors.oneLine(l.detail()))
                            .orElse("revoked")
                    + "); stopping the command: SIGTERM now, SIGKILL after " + DurationConverter.format(grace));
            err.flush();
            ChildProcesses.terminateTree(child, grace);
        }
    }
}
