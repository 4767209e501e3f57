package io.latchkey.core;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of one client: a single scheduler thread that only fires timers (renewal due, validity about
 * to run out) and never does I/O, and a cached pool of workers for renewals, asynchronous acquisitions and
 * loss clean-up, which does. No thread is created per lock or per acquisition: workers are reused and idle
 * ones exit after a minute. All threads are daemons so a forgotten client never keeps a JVM alive.
 */
final class CoreExecutors {
    final ScheduledThreadPoolExecutor scheduler;
    final ExecutorService workers;

    CoreExecutors(String clientId) {
        scheduler = new ScheduledThreadPoolExecutor(1, daemon("latchkey-watchdog"));
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                daemon("latchkey-worker"));
    }

    void shutdown() {
        scheduler.shutdownNow();
        workers.shutdown();
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
