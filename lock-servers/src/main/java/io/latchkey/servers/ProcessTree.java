package io.latchkey.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signals for a process and everything it spawned.
 *
 * <p>Design: Java has no API for SIGSTOP/SIGCONT, so those go through {@code kill(1)}; SIGTERM and SIGKILL
 * use {@link ProcessHandle}. Whole trees are signalled because a server is often behind a wrapper
 * ({@code runuser}, {@code su}, a shell script) that does not forward signals. A tree is snapshotted before
 * killing because a killed parent's children are re-parented and drop out of {@code descendants()}; it is
 * frozen first so that nothing forks between snapshot and kill. Descendants that are zombies count as gone,
 * since the init of a container may never reap them; the launched process itself is waited for with
 * {@link Process#waitFor}, by the caller. Stateless; safe from any thread.
 */
final class ProcessTree {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessTree.class);
    private static final Duration KILL_COMMAND_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration SIGNAL_SETTLE_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(10);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private ProcessTree() {}

    /** The root followed by all its living descendants. */
    static List<ProcessHandle> snapshot(ProcessHandle root) {
        List<ProcessHandle> all = new ArrayList<>();
        all.add(root);
        root.descendants().forEach(all::add);
        return all;
    }

    /** Sends {@code signal} (a name such as "STOP") to each process with {@code kill(1)}. */
    static void signal(String signal, Collection<ProcessHandle> processes) {
        List<String> command = new ArrayList<>();
        command.add("kill");
        command.add("-" + signal);
        for (ProcessHandle process : processes) {
            if (process.isAlive()) {
                command.add(Long.toString(process.pid()));
            }
        }
        if (command.size() == 2) {
            return;
        }
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            // outputs are tiny ("No such process" for a pid that just died), read all before waiting
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!kill.waitFor(KILL_COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("'" + String.join(" ", command) + "' did not finish in "
                        + KILL_COMMAND_TIMEOUT.toSeconds() + " s");
            }
            if (kill.exitValue() != 0) {
                // a process that exits between the snapshot and the signal is not an error
                LOG.debug("'{}' exited with {}: {}", String.join(" ", command), kill.exitValue(), output);
            }
        } catch (IOException e) {
            throw new IllegalStateException(
                    "could not run '" + String.join(" ", command) + "' (is procps or util-linux installed?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + signal, e);
        }
    }

    /** Sends SIGTERM to each process that is still running. */
    static void terminate(Collection<ProcessHandle> processes) {
        processes.forEach(ProcessHandle::destroy);
    }

    /** Freezes the tree, then SIGKILLs everything in it, including what was spawned meanwhile. */
    static void kill(ProcessHandle root) {
        List<ProcessHandle> first = snapshot(root);
        if (root.isAlive()) {
            signal("STOP", first);
        }
        List<ProcessHandle> all = new ArrayList<>(first);
        for (ProcessHandle late : snapshot(root)) {
            if (!all.contains(late)) {
                all.add(late);
            }
        }
        all.forEach(ProcessHandle::destroyForcibly);
    }

    /** Alive and not a zombie whose threads have all exited. */
    static boolean isRunning(ProcessHandle process) {
        return process.isAlive() && !isDefunct(process.pid());
    }

    /**
     * Dead but not reaped. The leader of a thread group shows 'Z' as soon as it exits itself, while its
     * other threads (which may hold the server's sockets) still run, so every task must be checked.
     */
    private static boolean isDefunct(long pid) {
        if (!isDeadState(state(pid))) {
            return false;
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                char taskState = stateFrom(task.resolve("stat"));
                if (!isDeadState(taskState) && taskState != '?') {
                    return false;
                }
            }
        } catch (IOException e) {
            // the process was reaped meanwhile
        }
        return true;
    }

    private static boolean isDeadState(char state) {
        return state == 'Z' || state == 'X';
    }

    /** Waits until none of {@code processes} runs; answers whether that happened in time. */
    static boolean awaitGone(Collection<ProcessHandle> processes, Duration timeout) {
        return awaitAll(processes, timeout, p -> !isRunning(p));
    }

    /**
     * Waits until every process that still runs shows state 'T' (stopped), so that {@code pause()} returns
     * only once the server is really frozen. Where /proc is absent this returns at once.
     */
    static boolean awaitStopped(Collection<ProcessHandle> processes, Duration timeout) {
        return awaitAll(processes, timeout, p -> !isRunning(p) || isStoppedOrUnknown(p.pid()));
    }

    private static boolean isStoppedOrUnknown(long pid) {
        char state = state(pid);
        return state == 'T' || state == 't' || state == '?';
    }

    private static boolean awaitAll(
            Collection<ProcessHandle> processes, Duration timeout, java.util.function.Predicate<ProcessHandle> done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean all = processes.stream().allMatch(done);
            if (all) {
                return true;
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** The state letter from /proc/PID/stat ('R', 'S', 'T', 'Z', ...), or '?' if it cannot be read. */
    static char state(long pid) {
        return stateFrom(Path.of("/proc", Long.toString(pid), "stat"));
    }

    private static char stateFrom(Path statFile) {
        try {
            String stat = Files.readString(statFile, StandardCharsets.UTF_8);
            int endOfName = stat.lastIndexOf(')'); // the command name may contain spaces and parentheses
            if (endOfName < 0 || endOfName + 2 >= stat.length()) {
                return '?';
            }
            return stat.charAt(endOfName + 2);
        } catch (IOException | RuntimeException e) {
            return '?';
        }
    }

    static String describe(Collection<ProcessHandle> processes) {
        return processes.stream().map(p -> Long.toString(p.pid())).collect(Collectors.joining(", ", "[", "]"));
    }

    /**
     * Sends SIGSTOP to the tree of {@code root} until a look finds no process that is not stopped yet. A server
     * may fork while it is being stopped (PostgreSQL starts a backend per connection): a child forked after one
     * snapshot would escape and keep serving, so stop what is there, look again, and repeat.
     *
     * @return every process that was sent SIGSTOP
     */
    private static List<ProcessHandle> stopAll(ProcessHandle root) {
        List<ProcessHandle> tree = new ArrayList<>();
        Set<Long> stopped = new HashSet<>();
        for (int round = 0; round < 20; round++) {
            List<ProcessHandle> fresh = new ArrayList<>();
            for (ProcessHandle p : snapshot(root)) {
                if (stopped.add(p.pid())) {
                    fresh.add(p);
                }
            }
            if (fresh.isEmpty()) {
                break;
            }
            signal("STOP", fresh);
            tree.addAll(fresh);
        }
        return tree;
    }

    /**
     * Waits until the launched process has been reaped (so {@link Process#isAlive()} is false and a new
     * start is allowed) and every other process of the tree is gone.
     */
    static boolean awaitTreeGone(Process running, List<ProcessHandle> tree, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            if (!running.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return awaitGone(tree, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }

    /** {@link #stopAll} and a wait until every process reports "stopped"; {@code name} is for the warning. */
    static List<ProcessHandle> freeze(String name, ProcessHandle root) {
        List<ProcessHandle> tree = stopAll(root);
        if (!awaitStopped(tree, SIGNAL_SETTLE_TIMEOUT)) {
            LOG.warn("{}: not every process of {} reported 'stopped' after SIGSTOP", name, describe(tree));
        }
        return tree;
    }

    /**
     * Sends {@code signal} to the whole tree (SIGCONT too when it is paused, since a stopped process cannot
     * handle the signal) and waits until the tree is gone.
     *
     * @return {@code false} if something is still there after {@code timeout}
     */
    static boolean signalAndAwait(Process running, String signal, boolean paused, Duration timeout) {
        List<ProcessHandle> tree = snapshot(running.toHandle());
        if (signal.equals("TERM")) {
            terminate(tree);
        } else {
            signal(signal, tree);
        }
        if (paused) {
            signal("CONT", tree);
        }
        return awaitTreeGone(running, tree, timeout);
    }

    /** SIGKILL to the tree and a wait until it is gone; {@code name} is for the warning about survivors. */
    static void killAndAwait(String name, Process running) {
        List<ProcessHandle> before = snapshot(running.toHandle());
        kill(running.toHandle());
        if (!awaitTreeGone(running, before, KILL_TIMEOUT)) {
            LOG.warn(
                    "{}: processes {} survived SIGKILL for {}",
                    name,
                    describe(before),
                    ProcessLaunch.seconds(KILL_TIMEOUT));
        }
    }

    /** {@link #killAndAwait}, then waits until the log has taken in what the tree wrote before it died. */
    static void killAndDrain(String name, Process running, LogCapture log) {
        killAndAwait(name, running);
        if (log != null) {
            log.awaitDrained(ProcessLaunch.DRAIN_TIMEOUT);
        }
    }
}
