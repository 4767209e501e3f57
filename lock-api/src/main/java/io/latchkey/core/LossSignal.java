package io.latchkey.core;

import io.latchkey.LockLoss;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;

/*
 * The lost() future of one grant and the LockLoss that completes it.
 *
 * Concurrency design. The future is created lazily (most grants are never lost) by whoever asks first, through
 * one compare-and-exchange, so every caller gets the same future. The LockLoss is published once, by the
 * HeldLock.markLost call that made the ACTIVE -> LOST move. `loss` is written before the future is read, and
 * the future before `loss` is read, so one of the two sides always completes it: the asker (here, on its own
 * thread) or markLost (off the timer thread, through the client).
 */
@NullMarked
final class LossSignal {
    private static final VarHandle FUTURE;

    static {
        try {
            FUTURE = MethodHandles.lookup().findVarHandle(LossSignal.class, "future", CompletableFuture.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile @Nullable LockLoss loss;

    @SuppressWarnings("unused") // accessed through FUTURE
    private volatile @Nullable CompletableFuture<LockLoss> future;

    /** Publishes the loss (once); returns the future to complete if someone has already asked for it. */
    @Nullable
    CompletableFuture<LockLoss> publish(LockLoss l) {
        loss = l;
        @SuppressWarnings("unchecked")
        CompletableFuture<LockLoss> f = (CompletableFuture<LockLoss>) FUTURE.getVolatile(this);
        return f;
    }

    /** The future that completes with the loss; completed at once if the loss is already known. */
    CompletionStage<LockLoss> stage() {
        @SuppressWarnings("unchecked")
        CompletableFuture<LockLoss> f = (CompletableFuture<LockLoss>) FUTURE.getVolatile(this);
        if (f == null) {
            CompletableFuture<LockLoss> created = new CompletableFuture<>();
            @SuppressWarnings("unchecked")
            CompletableFuture<LockLoss> witness =
                    (CompletableFuture<LockLoss>) FUTURE.compareAndExchange(this, null, created);
            f = witness == null ? created : witness;
        }
        LockLoss l = loss;
        if (l != null) {
            f.complete(l);
        }
        return f.minimalCompletionStage();
    }
}
