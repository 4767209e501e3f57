package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/*
 * A watch on one key, the waiter's predecessor, for its deletion (or, for a semaphore, on its whole queue). It starts at the server's current revision
 * (no start revision), so etcd registers it as a synced watcher and sends the delete event the moment it is
 * committed; a watch that starts at an older revision is "unsynced" and caught up by the server's 100 ms
 * loop, which is why etcd's own lock service hands over only every ~100 ms. Because a watch from "now" could
 * miss a delete that happened before it was created, the waiter waits for the created notification and then
 * re-reads the queue (Contention.check) before it sleeps.
 *
 * Concurrency design. jetcd calls the listener on its event-loop thread; the listener only completes
 * futures. `wake` completes on the delete event, on a watch error or cancellation (the waiter then re-reads
 * the queue, which is always safe), and when the waiter's lease dies (LeaseSession.deathWatchers).
 */
final class EtcdWaiting implements AutoCloseable {
    private static final WatchOption DELETES_FROM_NOW = WatchOption.builder()
            .withNoPut(true)
            .withCreateNotify(true)
            .withRequireLeader(true)
            .build();

    private final CompletableFuture<Void> created = new CompletableFuture<>();
    private final CompletableFuture<Void> wake = new CompletableFuture<>();
    private final Watch.Watcher watcher;

    private static final WatchOption DELETES_UNDER_PREFIX_FROM_NOW = WatchOption.builder()
            .withNoPut(true)
            .withCreateNotify(true)
            .withRequireLeader(true)
            .isPrefix(true)
            .build();

    private static final long MIN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final LeaseSession lease;
    private final Runnable onLeaseDeath = this::wake;

    /**
     * A watch for the deletion of {@code key} (or of any key under it, if {@code prefix}) by a waiter queued on
     * {@code lease}; the lease's death wakes the waiter too. Close it when the wait is over.
     */
    EtcdWaiting(Watch watch, ByteSequence key, boolean prefix, LeaseSession lease) {
        this.lease = lease;
        this.watcher = watch.watch(
                key,
                prefix ? DELETES_UNDER_PREFIX_FROM_NOW : DELETES_FROM_NOW,
                Watch.listener(this::onNext, this::onError, this::onCompleted));
        lease.deathWatchers.add(onLeaseDeath);
        if (!lease.alive()) {
            wake();
        }
    }

    private void onNext(WatchResponse r) {
        if (r.isCreatedNotify()) {
            created.complete(null);
        }
        for (WatchEvent e : r.getEvents()) {
            if (e.getEventType() == WatchEvent.EventType.DELETE) {
                wake.complete(null);
            }
        }
    }

    private void onError(Throwable t) {
        created.completeExceptionally(t);
        wake.complete(null);
    }

    private void onCompleted() {
        created.completeExceptionally(new IllegalStateException("the watch was closed before it was created"));
        wake.complete(null);
    }

    /** Wakes the waiter (its lease died). */
    void wake() {
        wake.complete(null);
    }

    /**
     * Waits until the server confirmed the watch.
     *
     * @return false if it was not confirmed in time or failed (the caller re-reads the queue and retries)
     */
    boolean awaitCreated(long timeoutNanos) throws InterruptedException {
        try {
            CompletableFuture.anyOf(created, wake).get(timeoutNanos, TimeUnit.NANOSECONDS);
            return created.isDone() && !created.isCompletedExceptionally();
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /** Sleeps until woken or the time is up; true if woken. */
    boolean awaitWake(long timeoutNanos) throws InterruptedException {
        try {
            wake.get(timeoutNanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        }
    }

    /** After a watch that was not confirmed (no leader?): pauses briefly before the caller reads again. */
    void pauseBeforeReread(long deadline) throws InterruptedException {
        long left = deadline - System.nanoTime();
        if (lease.alive() && left > 0) {
            TimeUnit.NANOSECONDS.sleep(Math.min(MIN_PAUSE_NANOS, left));
        }
    }

    @Override
    public void close() {
        lease.deathWatchers.remove(onLeaseDeath);
        watcher.close();
    }
}
