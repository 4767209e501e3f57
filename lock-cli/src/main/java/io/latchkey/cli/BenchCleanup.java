package io.latchkey.cli;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.LoggerFactory;

/**
 * What {@code bench} must undo for one backend (servers it started, temporary directories, a setup command
 * still running), run once, newest first, when the backend's turn ends or when the JVM goes down before
 * that (Ctrl-C, SIGTERM), whichever comes first.
 *
 * <p>Why a shutdown hook and not signal handlers as in {@code exec}: bench has no child command whose own
 * handling of the signal must be waited for, so exiting with the JVM's usual status (130 for Ctrl-C) is right,
 * and a hook runs on every orderly exit. Servers started through the TCK's {@code ServerProcess} are also
 * killed by that class's own hook; this one stops them gracefully where it gets there first (PostgreSQL then
 * removes its shared memory), and it is the only clean-up for an in-process server and its data directory.
 *
 * <p>Concurrency: the main thread adds actions and closes; the hook thread may close at the same time. An
 * {@link AtomicBoolean} lets one of them run the actions; actions sit in a concurrent deque from which the
 * runner polls, and an action added after the run began is run by the adding thread if it can still remove
 * it, so each action runs at most once.
 */
final class BenchCleanup implements AutoCloseable {
    private final String what;
    private final Deque<AutoCloseable> actions = new ConcurrentLinkedDeque<>();
    private final AtomicBoolean ran = new AtomicBoolean();
    private final Thread hook;

    BenchCleanup(String what) {
        this.what = what;
        this.hook = new Thread(this::runOnce, "latchkey-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Adds an action; it runs before those added earlier. */
    void add(AutoCloseable action) {
        actions.push(action);
        if (ran.get() && actions.remove(action)) {
            // the JVM is already going down (or the turn ended): do not leave this one behind
            runQuietly(action);
        }
    }

    @Override
    public void close() {
        runOnce();
        if (Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook finds nothing left to do
            }
        }
    }

    private void runOnce() {
        if (!ran.compareAndSet(false, true)) {
            return;
        }
        for (AutoCloseable action = actions.poll(); action != null; action = actions.poll()) {
            runQuietly(action);
        }
    }

    private void runQuietly(AutoCloseable action) {
        try {
            action.close();
        } catch (Exception e) {
            LoggerFactory.getLogger(BenchCleanup.class).warn("cleaning up after {}: {}", what, e.toString());
        }
    }
}
