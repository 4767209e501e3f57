package io.latchkey.recipes;

import io.latchkey.DistributedLock;
import io.latchkey.LockException;
import io.latchkey.LockHandle;
import io.latchkey.spi.DaemonThreads;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * One started key of ExclusiveTasks: a lifecycle thread that contends for the key's lock, runs the task under it
 * through a HeldTask, and then (by the options) contends again, keeps holding, or finishes.
 *
 * Concurrency design. Only the lifecycle thread changes `state` and `held`, and it alone completes `done`; stop()
 * never changes state, it completes `stopRequested` (which the lifecycle thread's waits watch) and cancels the
 * running HeldTask, whose own thread then releases the grant. So a stop racing a grant cannot leak it: the
 * lifecycle thread checks `stopRequested` after every grant before it runs anything. No lock is held anywhere.
 */
final class KeyedTask implements TaskHandle {
    private static final Logger log = LoggerFactory.getLogger(KeyedTask.class);

    private final String key;
    private final DistributedLock lock;
    private final ExclusiveTask task;
    private final @Nullable Duration retryEvery;
    private final TaskEnd taskEnd;
    private final Duration stopTimeout;
    private final Consumer<KeyedTask> onFinished;
    private final CompletableFuture<Void> stopRequested = new CompletableFuture<>();
    private final CompletableFuture<State> done = new CompletableFuture<>();
    private final CompletableFuture<Void> running = new CompletableFuture<>();
    private volatile State state = State.CONTENDING;
    private volatile @Nullable HeldTask held;

    KeyedTask(
            String key,
            DistributedLock lock,
            ExclusiveTask task,
            @Nullable Duration retryEvery,
            TaskEnd taskEnd,
            Duration stopTimeout,
            Consumer<KeyedTask> onFinished) {
        this.key = key;
        this.lock = lock;
        this.task = task;
        this.retryEvery = retryEvery;
        this.taskEnd = taskEnd;
        this.stopTimeout = stopTimeout;
        this.onFinished = onFinished;
    }

    KeyedTask start() {
        DaemonThreads.start("latchkey-task-" + lock.name(), this::lifecycle);
        return this;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public State state() {
        return state;
    }

    @Override
    public Optional<LockHandle> lock() {
        HeldTask h = held;
        return h != null && h.handle().isValid() ? Optional.of(h.handle()) : Optional.empty();
    }

    @Override
    public boolean awaitRunning(Duration wait) throws InterruptedException {
        try {
            CompletableFuture.anyOf(running, done).get(Math.max(0, wait.toNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            return false;
        }
        return state == State.RUNNING;
    }

    @Override
    public CompletionStage<State> done() {
        return done.minimalCompletionStage();
    }

    @Override
    public boolean stop() {
        if (!requestStop()) {
            return false;
        }
        awaitDone(stopTimeout);
        return true;
    }

    /** Asks the task to stop without waiting; false if it had already finished. */
    boolean requestStop() {
        if (done.isDone()) {
            return false;
        }
        stopRequested.complete(null);
        HeldTask h = held;
        if (h != null) {
            h.cancel(HeldTask.Cancellation.STOPPED);
        }
        return true;
    }

    /** Waits up to {@code timeout} for the final state; true if reached. */
    boolean awaitDone(Duration timeout) {
        try {
            done.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (TimeoutException | ExecutionException e) {
            log.warn(
                    "task '{}' did not return within {} of being stopped; its lock expires by its lease", key, timeout);
            return false;
        }
    }

    private void lifecycle() {
        try {
            finish(contendAndRun());
        } catch (RuntimeException | Error e) {
            log.error("task '{}': the lifecycle failed; the key is given up", key, e);
            finish(State.STOPPED);
        }
    }

    private State contendAndRun() {
        while (true) {
            if (stopRequested.isDone()) {
                return State.STOPPED;
            }
            state = State.CONTENDING;
            Optional<LockHandle> grant;
            try {
                grant = lock.tryAcquire();
            } catch (LockException e) {
                // not "taken": the store did not answer. Try again after a pause, whatever the retry option says
                log.warn("task '{}': could not reach the store to contend; trying again", key, e);
                waitForStop(retryEvery != null ? retryEvery : lock.options().renewInterval());
                continue;
            }
            if (grant.isEmpty()) {
                if (retryEvery == null) {
                    return stopRequested.isDone() ? State.STOPPED : State.NOT_ACQUIRED;
                }
                waitForStop(retryEvery);
                continue;
            }
            State end = runUnder(grant.get());
            if (end != State.LOST || retryEvery == null) {
                return end;
            }
        }
    }

    /** Runs the task under one grant; returns the state to finish in, or LOST to contend again. */
    private State runUnder(LockHandle grant) {
        HeldTask h = new HeldTask("latchkey-task-run-" + lock.name(), grant, task::run, taskEnd == TaskEnd.RELEASE);
        held = h;
        if (stopRequested.isDone()) {
            h.cancel(HeldTask.Cancellation.STOPPED); // before start: the body never runs, the grant is released
        }
        h.start();
        state = State.RUNNING;
        running.complete(null);
        HeldTask.Outcome outcome = h.ended().toCompletableFuture().join();
        if (outcome.failure() != null) {
            log.warn(
                    "task '{}' (lock '{}', token {}) failed",
                    key,
                    lock.name(),
                    grant.fencingToken(),
                    outcome.failure());
        }
        HeldTask.Cancellation why = outcome.cancelledBy();
        if (why == HeldTask.Cancellation.LOST) {
            held = null;
            return State.LOST;
        }
        if (why != null) {
            held = null;
            return State.STOPPED;
        }
        if (taskEnd == TaskEnd.RELEASE) {
            held = null;
            return State.COMPLETED;
        }
        state = State.HOLDING;
        CompletableFuture.anyOf(stopRequested, grant.lost().toCompletableFuture())
                .join();
        boolean lost = !stopRequested.isDone();
        grant.close();
        held = null;
        return lost ? State.LOST : State.STOPPED;
    }

    /** Waits up to {@code pause}; true if a stop was requested meanwhile. */
    private boolean waitForStop(Duration pause) {
        try {
            stopRequested.get(pause.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException | ExecutionException e) {
            return true; // nobody interrupts this thread but the JVM's shutdown; give up the key
        }
    }

    private void finish(State end) {
        state = end;
        onFinished.accept(this);
        done.complete(end);
    }

    @Override
    public String toString() {
        return "TaskHandle[" + key + ", " + state + "]";
    }
}
