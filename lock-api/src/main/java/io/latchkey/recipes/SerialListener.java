package io.latchkey.recipes;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Runs one listener's calls on the caller's executor one at a time, in submission order, whatever the executor's
 * own parallelism: a queue plus a "draining" flag, both under a small lock that is never held while a call runs.
 * The drainer that empties the queue clears the flag under the lock, so a call submitted concurrently either
 * joins the running drain or starts a new one: none is stranded.
 */
final class SerialListener {
    private static final Logger log = LoggerFactory.getLogger(SerialListener.class);

    private final Executor executor;
    private final String what;
    private final ReentrantLock lock = new ReentrantLock();
    private final Queue<Runnable> queue = new ArrayDeque<>();
    private boolean draining;

    SerialListener(Executor executor, String what) {
        this.executor = executor;
        this.what = what;
    }

    void submit(Runnable call) {
        lock.lock();
        try {
            queue.add(call);
            if (draining) {
                return;
            }
            draining = true;
        } finally {
            lock.unlock();
        }
        try {
            executor.execute(this::drain);
        } catch (RejectedExecutionException e) {
            log.warn("{}: the listener's executor rejected a call; it runs on the calling thread", what, e);
            drain();
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            lock.lock();
            try {
                next = queue.poll();
                if (next == null) {
                    draining = false;
                    return;
                }
            } finally {
                lock.unlock();
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                log.warn("{}: a listener failed; ignored", what, e);
            }
        }
    }
}
