package io.latchkey.core;

import io.latchkey.spi.DaemonThreads;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/*
 * The threads of one client. No thread is created per lock or per acquisition:
 * - `scheduler`: one thread that only fires timers (renewal due, validity about to run out); never I/O.
 *   A DeadlineTimer, which does not wake its thread for every lock taken and released.
 * - `workers`: a small bounded pool (at most RENEWAL_THREADS) for renewals and best-effort releases.
 *   Renewals are short store calls, so a thousand locks due at the same moment
 *   queue here instead of creating a thousand threads; the loss deadline of each grant is armed on the
 *   scheduler independently, so a queued renewal cannot delay a loss report.
 * - `async`: a cached pool for acquireAsync/tryAcquireAsync (which may wait for long) and for completing
 *   lost() futures (whose user callbacks might block); its
 *   threads are reused and idle ones exit after a minute.
 * All threads are daemons so a forgotten client never keeps a JVM alive (io.latchkey.spi.DaemonThreads).
 */
final class CoreExecutors {
    static final int RENEWAL_THREADS = 4;

    final DeadlineTimer scheduler;
    final ThreadPoolExecutor workers;
    final ExecutorService async;

    CoreExecutors() {
        scheduler = new DeadlineTimer(DaemonThreads.factory("latchkey-watchdog"));
        workers = new ThreadPoolExecutor(
                RENEWAL_THREADS,
                RENEWAL_THREADS,
                30,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                DaemonThreads.factory("latchkey-renewal"));
        workers.allowCoreThreadTimeOut(true);
        async = new ThreadPoolExecutor(
                0,
                Integer.MAX_VALUE,
                60,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                DaemonThreads.factory("latchkey-async"));
    }

    void shutdown() {
        scheduler.shutdown();
        workers.shutdown();
        async.shutdownNow();
    }
}
