package io.latchkey.redis;

import io.latchkey.spi.Grant;
import java.nio.charset.StandardCharsets;

/*
 * What the later calls of an exclusive grant (release, renewals) send, encoded once when it was acquired and carried
 * in Grant.state(): its keys, its owner and its token as bytes, so that a cycle builds its keys once, not once per
 * call. Immutable. A grant without it (one this backend did not make, such as a holder found by inspection, or one
 * made by another backend with another key prefix) is encoded again.
 */
final class GrantBytes {
    final RedisKeys.NameKeys keys;
    final byte[] owner;
    final byte[] token;
    private final RedisKeys by;

    GrantBytes(RedisKeys by, RedisKeys.NameKeys keys, byte[] owner, byte[] token) {
        this.by = by;
        this.keys = keys;
        this.owner = owner;
        this.token = token;
    }

    /** The grant's bytes under {@code keys}: those it carries when {@code keys} made them, else encoded now. */
    static GrantBytes of(Grant grant, RedisKeys keys) {
        if (grant.state() instanceof GrantBytes b && b.by == keys) {
            return b;
        }
        return new GrantBytes(
                keys,
                keys.of(grant.name()),
                grant.owner().getBytes(StandardCharsets.UTF_8),
                RedisScripts.bytes(grant.fencingToken()));
    }

    @Override
    public String toString() {
        return "redis keys"; // Grant.toString shows it; the bytes say nothing a reader needs
    }
}
