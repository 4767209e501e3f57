package io.latchkey.recipes;

import io.latchkey.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** One key started on {@link ExclusiveTasks}: where its task is, and the means to stop it. Thread-safe. */
public interface TaskHandle {

    /** Where a key's task is. The last four are final. */
    enum State {
        /** Trying to win the key's lock (or waiting to retry). */
        CONTENDING,
        /** The lock is held and the task runs. */
        RUNNING,
        /** The task returned by itself and the lock is kept ({@link TaskEnd#KEEP_HOLDING}). */
        HOLDING,
        /** The task returned by itself and the lock was released ({@link TaskEnd#RELEASE}). Final. */
        COMPLETED,
        /** The key was taken by another instance and no retry was configured. Final. */
        NOT_ACQUIRED,
        /** The lock was lost and no retry was configured; the task was cancelled. Final. */
        LOST,
        /** Stopped by {@code stop(key)}, {@link #stop()} or {@code close()}; the task was cancelled. Final. */
        STOPPED;

        /**
         * True for the states a task never leaves.
         *
         * @return whether the task can no longer change state
         */
        public boolean isFinal() {
            return this == COMPLETED || this == NOT_ACQUIRED || this == LOST || this == STOPPED;
        }
    }

    /**
     * The key.
     *
     * @return the key given to {@link ExclusiveTasks#start}
     */
    String key();

    /**
     * Where the task is now.
     *
     * @return the task's state now
     */
    State state();

    /**
     * The lock's current grant, while the task runs or the lock is kept after it.
     *
     * @return the key's lock handle, or empty when this instance does not hold it
     */
    Optional<LockHandle> lock();

    /**
     * Waits up to {@code wait} for the task to be running.
     *
     *
     * @param wait how long to wait: zero or positive
     * @return true if it is running; false if the wait ran out or the task reached a final state first
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    boolean awaitRunning(Duration wait) throws InterruptedException;

    /**
     * Completes with the final state once the task has ended and its lock was released.
     *
     * @return a stage completed with the final state
     */
    CompletionStage<State> done();

    /**
     * Stops the task: interrupts it if it runs, waits for it to return (up to the stop timeout), and releases the
     * lock.
     *
     * @return true if this call stopped it; false if it had already reached a final state
     */
    boolean stop();
}
