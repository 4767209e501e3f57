package io.latchkey.recipes;

import io.latchkey.Durations;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.Reentrancy;
import java.time.Duration;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Tasks that each run on one instance at a time: {@link #start(String, ExclusiveTask)} runs a key's task only while
 * this instance holds the key's lock, and cancels it (interrupt, and an invalid {@link io.latchkey.LockHandle}) the
 * moment the lock is lost or the key is stopped. Every instance may start the same keys; the store decides which
 * one runs each.
 *
 * <pre>{@code
 * try (ExclusiveTasks tasks = ExclusiveTasks.builder(client).prefix("jobs/").retryWhenTaken(Duration.ofSeconds(5)).build()) {
 *     tasks.start("nightly-report", handle -> {
 *         while (handle.isValid()) { reportOnce(handle.fencingToken()); }
 *     });
 *     ...
 * }
 * }</pre>
 *
 * <p>Lock names are {@code prefix + key}; {@link #lockedEverywhere()} lists the keys under the prefix that any
 * instance holds. Each started key uses one thread to contend and one to run its task.
 */
public interface ExclusiveTasks extends AutoCloseable {

    /**
     * A builder for exclusive tasks through {@code client}.
     *
     * @param client the client whose locks the tasks hold
     * @return a new builder
     */
    static Builder builder(LockClient client) {
        return new Builder(client);
    }

    /**
     * Starts contending for {@code key} and returns at once; the task runs when the lock is won.
     *
     *
     * @param key the task's key; {@code prefix + key} is its lock's name
     * @param task what runs while this instance holds the key's lock
     * @return the task's handle, to watch or stop it
     * @throws IllegalArgumentException if {@code prefix + key} is not a valid lock name
     * @throws IllegalStateException    if the key was started here and has not reached a final state, or if this
     *                                  instance was closed
     */
    TaskHandle start(String key, ExclusiveTask task);

    /**
     * Stops the key's task: cancels it, waits for it to return (up to the stop timeout) and releases its lock.
     *
     *
     * @param key the task's key
     * @return true if there was a task for the key that had not ended
     */
    boolean stop(String key);

    /**
     * The keys whose lock this instance holds now.
     *
     * @return the keys held here, a snapshot
     */
    Set<String> holding();

    /**
     * The keys whose lock any instance holds, read from the store (one {@code list} call under the prefix).
     *
     *
     * @return the keys held by any instance, a snapshot
     * @throws UnsupportedOperationException if the backend cannot list locks
     */
    Set<String> lockedEverywhere();

    /** Stops every task, waits up to the stop timeout for them to return, and releases their locks. Idempotent. */
    @Override
    void close();

    /** Builder for {@link ExclusiveTasks}; not thread-safe. Each setter checks its argument at once. */
    final class Builder {
        private final LockClient client;
        private LockOptions options = LockOptions.defaults();
        private String prefix = "";
        private @Nullable Duration retryEvery;
        private TaskEnd taskEnd = TaskEnd.RELEASE;
        private Duration stopTimeout = Duration.ofSeconds(10);

        private Builder(LockClient client) {
            if (client == null) {
                throw new IllegalArgumentException("client must not be null");
            }
            this.client = client;
        }

        /**
         * The keys' lock options (default {@link LockOptions#defaults()}). Auto-renewal must be on (a task runs as
         * long as it needs) and reentrancy {@link Reentrancy#NONE}; bound a task's hold with {@code maxHold}.
         *
         * @param options the keys' lock options
         * @return this builder
         */
        public Builder options(LockOptions options) {
            if (options == null) {
                throw new IllegalArgumentException("options must not be null");
            }
            if (!options.autoRenew()) {
                throw new IllegalArgumentException(
                        "exclusive tasks renew their lock while the task runs: options must have autoRenew on, was off");
            }
            if (options.reentrancy() != Reentrancy.NONE) {
                throw new IllegalArgumentException(
                        "exclusive tasks hold one grant per key: options must have reentrancy NONE, was "
                                + options.reentrancy());
            }
            this.options = options;
            return this;
        }

        /**
         * Prepended to every key to make its lock name (default ""): a namespace such as {@code "jobs/"}.
         *
         * @param prefix the namespace of the keys' lock names
         * @return this builder
         */
        public Builder prefix(String prefix) {
            if (prefix == null) {
                throw new IllegalArgumentException("prefix must not be null; use \"\" for none");
            }
            this.prefix = prefix.isEmpty() ? prefix : Latchkey.checkLockName(prefix);
            return this;
        }

        /**
         * Keeps trying to win a key that is taken, every {@code every} (positive), and contends again after a loss.
         * Default: one attempt; a taken key ends {@link TaskHandle.State#NOT_ACQUIRED}.
         *
         * @param every the pause between attempts, positive
         * @return this builder
         */
        public Builder retryWhenTaken(Duration every) {
            this.retryEvery = Durations.requireLease(every, "retryWhenTaken");
            return this;
        }

        /**
         * One attempt per start (the default): a taken key ends NOT_ACQUIRED, a lost one LOST.
         *
         * @return this builder
         */
        public Builder noRetry() {
            this.retryEvery = null;
            return this;
        }

        /**
         * What happens to the lock when a task returns by itself (default {@link TaskEnd#RELEASE}).
         *
         * @param end {@code RELEASE} or {@code KEEP_HOLDING}
         * @return this builder
         */
        public Builder whenTaskEnds(TaskEnd end) {
            if (end == null) {
                throw new IllegalArgumentException("whenTaskEnds must not be null: RELEASE or KEEP_HOLDING");
            }
            this.taskEnd = end;
            return this;
        }

        /**
         * How long stop and close wait for a cancelled task to return (positive; default 10 s).
         *
         * @param timeout the wait for a cancelled task, positive
         * @return this builder
         */
        public Builder stopTimeout(Duration timeout) {
            this.stopTimeout = Durations.requireLease(timeout, "stopTimeout");
            return this;
        }

        /**
         * The exclusive tasks; contention starts with the first {@link ExclusiveTasks#start}.
         *
         * @return the exclusive tasks
         */
        public ExclusiveTasks build() {
            return new LockExclusiveTasks(client, options, prefix, retryEvery, taskEnd, stopTimeout);
        }
    }
}
