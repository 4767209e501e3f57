package io.latchkey.core;

import io.latchkey.DistributedLock;
import io.latchkey.Durations;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.Reentrancy;
import io.latchkey.spi.GrantKind;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/** The core's {@link DistributedLock}: a name and options bound to a client; all state lives in the client. */
final class CoreLock implements DistributedLock {
    private final CoreLockClient client;
    private final String name;
    private final LockOptions options;
    private final GrantKind kind;
    private volatile JavaLockView javaLock;

    CoreLock(CoreLockClient client, String name, LockOptions options) {
        this(client, name, options, GrantKind.EXCLUSIVE);
    }

    /** A view that asks the store for {@code kind} (a semaphore's permits use one per permit count). */
    CoreLock(CoreLockClient client, String name, LockOptions options, GrantKind kind) {
        this.client = client;
        this.name = name;
        this.options = options;
        this.kind = kind;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    CoreLockClient client() {
        return client;
    }

    @Override
    public Optional<LockHandle> tryAcquire() {
        try {
            return Optional.ofNullable(AcquireLoop.acquire(client, name, kind, options, 0, null, false));
        } catch (InterruptedException e) {
            // a single attempt never blocks; keep the interrupt for the caller
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration wait) throws InterruptedException {
        long nanos = Durations.requireWait(wait, "wait").toNanos();
        failIfInterrupted();
        return Optional.ofNullable(AcquireLoop.acquire(client, name, kind, options, nanos, wait, false));
    }

    @Override
    public LockHandle acquire(Duration wait) throws InterruptedException {
        long nanos = Durations.requireWait(wait, "wait").toNanos();
        failIfInterrupted();
        return AcquireLoop.acquire(client, name, kind, options, nanos, wait, true);
    }

    @Override
    public LockHandle acquire() throws InterruptedException {
        failIfInterrupted();
        return AcquireLoop.acquire(client, name, kind, options, Long.MAX_VALUE, null, true);
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync(Duration wait) {
        Durations.requireWait(wait, "wait");
        return async(() -> acquire(wait), LockHandle::close);
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync() {
        return async(this::tryAcquire, h -> h.ifPresent(LockHandle::close));
    }

    private interface Attempt<T> {
        T run() throws InterruptedException;
    }

    private interface Undo<T> {
        void undo(T value);
    }

    /**
     * Runs an acquisition on a worker. If the caller cancels the future, the worker is interrupted; a grant
     * that arrives anyway (the future is already completed) is released at once, never leaked, and one whose reply
     * the interrupt cost is ended by the acquire loop (CoreLockClient.abandonInBackground).
     */
    private <T> CompletableFuture<T> async(Attempt<T> attempt, Undo<T> undo) {
        client.checkOpen(name);
        CompletableFuture<T> result = new CompletableFuture<>();
        Future<?> task;
        try {
            task = client.executors.async.submit(() -> {
                try {
                    T value = attempt.run();
                    if (!result.complete(value)) {
                        // cancelled meanwhile, which interrupted this worker: a driver that refuses I/O on an
                        // interrupted thread (MongoDB's) would fail the release and leave the grant to its lease
                        Thread.interrupted();
                        undo.undo(value);
                    }
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            });
        } catch (RejectedExecutionException e) {
            client.checkOpen(name);
            throw e;
        }
        result.whenComplete((v, e) -> {
            if (result.isCancelled()) {
                task.cancel(true);
            }
        });
        return result;
    }

    @Override
    public <T> T runExclusive(Duration wait, Function<? super LockHandle, ? extends T> task)
            throws InterruptedException {
        if (task == null) {
            throw new IllegalArgumentException("task must not be null");
        }
        return ExclusiveRunner.run(this, wait, task);
    }

    @Override
    public void runExclusive(Duration wait, Runnable task) throws InterruptedException {
        if (task == null) {
            throw new IllegalArgumentException("task must not be null");
        }
        ExclusiveRunner.run(this, wait, h -> {
            task.run();
            return null;
        });
    }

    @Override
    public Lock asJavaLock() {
        JavaLockView view = javaLock;
        if (view == null) {
            LockOptions reentrant = options.reentrancy() == Reentrancy.PER_THREAD
                    ? options
                    : options.toBuilder().reentrancy(Reentrancy.PER_THREAD).build();
            view = new JavaLockView(new CoreLock(client, name, reentrant, kind));
            javaLock = view;
        }
        return view;
    }

    private static void failIfInterrupted() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring");
        }
    }

    @Override
    public String toString() {
        return "DistributedLock['" + name + "' on " + client.backend() + ", " + options + "]";
    }
}
