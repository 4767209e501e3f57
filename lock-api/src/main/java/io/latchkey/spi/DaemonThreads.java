package io.latchkey.spi;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The thread factory of every Latchkey thread: daemon threads (a forgotten client never keeps a JVM alive)
 * with a name that says whose they are ({@code latchkey-redlock-1}), so that a thread dump reads. Written once
 * so that every backend names and marks its threads the same way. Stateless; the factories are thread-safe.
 */
public final class DaemonThreads {
    private DaemonThreads() {}

    /**
     * A factory whose threads are named {@code prefix-1}, {@code prefix-2}, …
     *
     * @param prefix the threads' name prefix
     * @return the factory
     */
    public static ThreadFactory factory(String prefix) {
        requirePrefix(prefix);
        AtomicInteger n = new AtomicInteger();
        return r -> named(prefix + "-" + n.incrementAndGet(), r);
    }

    /**
     * A factory for a single-thread executor: its thread is named {@code name} exactly.
     *
     * @param name the thread's name
     * @return the factory
     */
    public static ThreadFactory single(String name) {
        requirePrefix(name);
        return r -> named(name, r);
    }

    /**
     * Starts a daemon thread named {@code name} that runs {@code task}.
     *
     * @param name the thread's name
     * @param task what it runs
     * @return the started thread
     */
    public static Thread start(String name, Runnable task) {
        requirePrefix(name);
        Thread t = named(name, task);
        t.start();
        return t;
    }

    private static Thread named(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private static void requirePrefix(String prefix) {
        if (prefix == null || prefix.isBlank()) {
            throw new IllegalArgumentException("a thread name must not be blank; for example latchkey-redis");
        }
    }
}
