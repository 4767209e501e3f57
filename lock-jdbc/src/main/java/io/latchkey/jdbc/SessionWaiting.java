package io.latchkey.jdbc;

import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.DaemonThreads;
import io.latchkey.spi.Grant;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Session mode's waiting: the database queues the waiter, and this class keeps the caller interruptible and on
 * its deadline while it does.
 *
 * Concurrency design.
 * - After a failed try, the blocking statement runs on a thread of a cached pool of daemon threads while the
 *   caller waits on its Future; on interruption or deadline the caller cancels the statement
 *   (Statement.cancel: a cancel request, KILL QUERY, or H2's cancel flag) and leaves at once.
 * - Who owns the connection then is decided by one compare-and-set on `state`: if the worker finishes first its
 *   result goes to the caller, else the connection belongs to the worker, which gives back any lock it got in
 *   the same instant and returns the connection itself (HANDED_OFF; the caller's interrupt is re-asserted).
 * - Embedded H2 runs statements on the caller's thread and may swallow an interrupt that arrives inside them,
 *   so a waiting H2 acquisition runs wholly on a worker (offThread) and the caller only waits on the Future.
 */
final class SessionWaiting implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SessionWaiting.class);
    /** inDatabase's answer when the caller gave up and left the connection to the waiting thread. */
    static final long HANDED_OFF = Long.MIN_VALUE;

    /** An acquisition that can be told to stop. */
    interface Attempt {
        AcquireResult run(AtomicBoolean cancelled) throws InterruptedException;
    }

    /** The blocking statement: the token if the lock was taken, else -1; publishes itself in {@code running}. */
    interface DatabaseWait {
        long run(long waitMillis, AtomicReference<Statement> running) throws SQLException;
    }

    /** Lets go of a lock the wait took after the caller was interrupted. */
    interface Unlock {
        void run() throws SQLException;
    }

    /** Cleans up a connection whose wait ended without the caller (gives back a lock taken meanwhile). */
    interface Abandoned {
        void putBack(Connection c);
    }

    private final SessionStatements sql;
    private final String description;
    private final ExecutorService waiters = Executors.newCachedThreadPool(DaemonThreads.factory("latchkey-jdbc-wait"));

    SessionWaiting(SessionStatements sql, String description) {
        this.sql = sql;
        this.description = description;
    }

    /**
     * Runs a whole acquisition on a worker while the caller waits on its Future; a grant that arrives after
     * the caller was interrupted is given to {@code giveBack}.
     */
    AcquireResult offThread(Attempt attempt, java.util.function.Consumer<Grant> giveBack) throws InterruptedException {
        AtomicBoolean cancelled = new AtomicBoolean();
        Future<AcquireResult> f = waiters.submit(() -> attempt.run(cancelled));
        try {
            return f.get();
        } catch (InterruptedException e) {
            cancelled.set(true);
            try {
                AcquireResult late = getUninterruptibly(f);
                if (late instanceof Grant g) {
                    giveBack.accept(g);
                }
            } catch (ExecutionException ignored) {
                // nothing was acquired
            }
            throw e;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * Waits in the database on a worker thread (or on this one when {@code onWorker}, as offThread runs it): the
     * token if the lock was taken, -1 if not, or {@link #HANDED_OFF} when the caller gave up and the worker
     * now owns {@code c} and returns it through {@code abandoned}.
     */
    long inDatabase(
            Connection c,
            LockKey k,
            String owner,
            Duration maxWait,
            AtomicBoolean cancelled,
            boolean onWorker,
            Abandoned abandoned)
            throws SQLException {
        return inDatabase(
                c,
                (waitMillis, running) -> sql.waitLock(c, k, owner, waitMillis, running, cancelled),
                () -> sql.unlock(c, k),
                maxWait,
                cancelled,
                onWorker,
                abandoned);
    }

    /** As above, for any blocking statement (read-write locks bring their own). */
    long inDatabase(
            Connection c,
            DatabaseWait wait,
            Unlock unlock,
            Duration maxWait,
            AtomicBoolean cancelled,
            boolean onWorker,
            Abandoned abandoned)
            throws SQLException {
        long waitMillis =
                Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(maxWait.toNanos(), TimeUnit.DAYS.toNanos(1))));
        AtomicReference<Statement> running = new AtomicReference<>();
        if (onWorker) {
            return wait.run(waitMillis, running);
        }
        AtomicInteger state = new AtomicInteger(); // 0 waiting, 1 finished (result to the caller), 2 abandoned
        Future<Long> f = waiters.submit(() -> {
            long token = -1;
            try {
                token = wait.run(waitMillis, running);
                return token;
            } finally {
                if (!state.compareAndSet(0, 1)) {
                    abandoned.putBack(c); // the caller left: clean up here
                }
            }
        });
        boolean interrupted = false;
        try {
            return f.get(maxWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // give up below
        } catch (InterruptedException e) {
            interrupted = true;
        } catch (ExecutionException e) {
            throw asSql(e.getCause());
        }
        cancelled.set(true);
        cancel(running);
        if (state.compareAndSet(0, 2)) {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return HANDED_OFF;
        }
        long token; // the worker finished in the meantime: its result is ours
        try {
            token = getUninterruptibly(f);
        } catch (ExecutionException e) {
            token = -1;
        }
        if (interrupted) {
            if (token > 0) {
                unlock.run();
            }
            Thread.currentThread().interrupt();
            return -1;
        }
        return token;
    }

    private static <T> T getUninterruptibly(Future<T> f) throws ExecutionException {
        boolean interrupted = false;
        try {
            for (; ; ) {
                try {
                    return f.get();
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

    private void cancel(AtomicReference<Statement> running) {
        Statement s = running.get();
        if (s != null) {
            try {
                s.cancel();
            } catch (SQLException | RuntimeException e) {
                log.debug("cancelling a lock wait on {} failed", description, e);
            }
        }
    }

    private static SQLException asSql(Throwable t) {
        if (t instanceof SQLException e) {
            return e;
        }
        if (t instanceof RuntimeException e) {
            throw e;
        }
        return new SQLException(String.valueOf(t), t);
    }

    @Override
    public void close() {
        waiters.shutdownNow();
    }
}
