package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;

/**
 * The backend-private state of a grant: the contender key that holds the lock and its create revision (the
 * fencing token). {@code session} is the lease of this client the key is bound to, or {@code null} when a
 * retried acquisition recognised a key another client of the same owner created (its lease is not ours to
 * watch). Immutable.
 */
record HeldKey(String name, String owner, ByteSequence key, long revision, LeaseSession session) {
    @Override
    public String toString() {
        return "HeldKey['" + name + "', revision " + revision + ", " + (session == null ? "foreign lease" : session)
                + "]";
    }
}
