package io.latchkey.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends signals to the command {@code exec} runs. Java can send only SIGTERM ({@link Process#destroy()})
 * and SIGKILL ({@link Process#destroyForcibly()}); any other signal (SIGINT, SIGHUP) is sent with the
 * system's {@code kill -s}, falling back to SIGTERM if that is not possible.
 *
 * <p>Thread-safe: stateless; the delayed SIGKILL runs on {@link CompletableFuture}'s shared delay thread.
 */
final class ChildProcesses {
    private static final Logger log = LoggerFactory.getLogger(ChildProcesses.class);

    private ChildProcesses() {}

    /** Sends the named signal ("TERM", "INT", "HUP") to the child only, as a shell would. */
    static void signal(Process child, String signal) {
        if (!child.isAlive()) {
            return;
        }
        if ("TERM".equals(signal)) {
            child.destroy();
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(child.pid()))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                log.warn("could not send SIG{} to pid {}; sending SIGTERM", signal, child.pid());
                child.destroy();
            }
        } catch (IOException e) {
            log.warn(
                    "could not run kill to send SIG{} to pid {} ({}); sending SIGTERM",
                    signal,
                    child.pid(),
                    e.toString());
            child.destroy();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            child.destroy();
        }
    }

    /**
     * Stops the child and everything it started: SIGTERM to the whole tree now, SIGKILL to whatever is still
     * alive after {@code grace}. The tree is taken before the child dies, because its children are
     * re-parented (and no longer its descendants) once it has.
     */
    static void terminateTree(Process child, Duration grace) {
        List<ProcessHandle> tree = tree(child);
        tree.forEach(ProcessHandle::destroy);
        CompletableFuture.delayedExecutor(grace.toNanos(), TimeUnit.NANOSECONDS).execute(() -> {
            Set<ProcessHandle> now = new LinkedHashSet<>(tree); // ProcessHandle equality is by pid
            if (child.isAlive()) {
                now.addAll(tree(child));
            }
            for (ProcessHandle p : now) {
                if (p.isAlive()) {
                    log.warn(
                            "pid {} did not exit within {} of SIGTERM; sending SIGKILL",
                            p.pid(),
                            DurationConverter.format(grace));
                    p.destroyForcibly();
                }
            }
        });
    }

    private static List<ProcessHandle> tree(Process child) {
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(child.toHandle());
        child.descendants().forEach(tree::add);
        return tree;
    }

    /** Waits for the child to exit, ignoring interrupts (signals are forwarded; the child decides). */
    static int waitFor(Process child) {
        boolean interrupted = false;
        try {
            for (; ; ) {
                try {
                    return child.waitFor();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
