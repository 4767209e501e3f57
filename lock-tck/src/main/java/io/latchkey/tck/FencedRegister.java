package io.latchkey.tck;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A store that honours fencing tokens, as the resource a lock guards should: it accepts a write whose token is at
 * least the highest it has accepted and rejects an older one. The process rules offer it every write in the order
 * the writes happened and check which it accepts.
 */
public final class FencedRegister {
    private final AtomicLong highest = new AtomicLong(Long.MIN_VALUE);

    /**
     * Offers a write fenced with {@code token}.
     *
     * @param token the writer's fencing token
     * @return whether the write was accepted
     */
    public boolean write(long token) {
        return highest.accumulateAndGet(token, Math::max) == token;
    }

    /**
     * The highest token accepted so far.
     *
     * @return the token, or {@link Long#MIN_VALUE} before the first write
     */
    public long highest() {
        return highest.get();
    }
}
