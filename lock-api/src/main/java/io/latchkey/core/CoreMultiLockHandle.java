package io.latchkey.core;

import io.latchkey.BackendUnavailableException;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.MultiLockHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/*
 * The parts of a lockAll, held together. Each part is its own CoreHandle with its own watchdog; this class only
 * combines them: the first part's loss completes `firstLoss` (each part's listener races to complete it, the
 * first wins), validity is the minimum, and release walks the parts in reverse order, going on past a failed part
 * so that one unreachable store call never strands the rest.
 */
final class CoreMultiLockHandle implements MultiLockHandle {
    private final List<LockHandle> parts;
    private final CompletableFuture<LockLoss> firstLoss = new CompletableFuture<>();

    CoreMultiLockHandle(List<LockHandle> parts) {
        this.parts = List.copyOf(parts);
        for (LockHandle part : this.parts) {
            part.onLost(firstLoss::complete);
        }
    }

    @Override
    public List<LockHandle> handles() {
        return parts;
    }

    @Override
    public Map<String, Long> fencingTokens() {
        Map<String, Long> tokens = new LinkedHashMap<>();
        for (LockHandle part : parts) {
            tokens.put(part.name(), part.fencingToken());
        }
        return tokens;
    }

    @Override
    public boolean isValid() {
        return parts.stream().allMatch(LockHandle::isValid);
    }

    @Override
    public Instant validUntil() {
        return parts.stream()
                .map(LockHandle::validUntil)
                .min(Instant::compareTo)
                .orElseThrow();
    }

    @Override
    public Duration remaining() {
        return parts.stream()
                .map(LockHandle::remaining)
                .min(Duration::compareTo)
                .orElseThrow();
    }

    @Override
    public CompletionStage<LockLoss> lost() {
        return firstLoss.minimalCompletionStage();
    }

    @Override
    public void onLost(Consumer<? super LockLoss> listener) {
        firstLoss.thenAccept(listener);
    }

    @Override
    public boolean release() {
        boolean all = true;
        @Nullable BackendUnavailableException failure = null;
        for (int i = parts.size() - 1; i >= 0; i--) {
            try {
                all &= parts.get(i).release();
            } catch (BackendUnavailableException e) {
                all = false;
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return all;
    }

    @Override
    public void close() {
        releaseInReverse(parts);
    }

    /** Closes the handles, last first; close never throws. */
    static void releaseInReverse(List<LockHandle> handles) {
        for (int i = handles.size() - 1; i >= 0; i--) {
            handles.get(i).close();
        }
    }

    @Override
    public String toString() {
        return "MultiLockHandle" + fencingTokens() + (isValid() ? "" : " (not valid)");
    }
}
