package io.latchkey.recipes;

import io.latchkey.LockHandle;

/**
 * Work that must run on one instance at a time, started by {@link ExclusiveTasks#start(String, ExclusiveTask)}.
 * It runs on a thread of its own while the key's lock is held. When the lock is lost or the task is stopped, its
 * thread is interrupted and {@code handle.isValid()} turns false: a task that loops checks either and returns.
 */
@FunctionalInterface
public interface ExclusiveTask {

    /**
     * Runs the task. Pass {@code handle.fencingToken()} to the resources it writes so that they can reject writes
     * from a holder that was paused past its lease.
     *
     * @param handle the key's lock, held while the task runs
     * @throws Exception ends the task as a return does ({@link TaskEnd} decides whether the lock is released)
     */
    void run(LockHandle handle) throws Exception;
}
