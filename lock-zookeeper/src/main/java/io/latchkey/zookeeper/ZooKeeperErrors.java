package io.latchkey.zookeeper;

import io.latchkey.BackendUnavailableException;
import org.apache.zookeeper.KeeperException;

/*
 * The errors of one backend's operations, one line each, naming the operation, the lock and the store (never a
 * credential: the description is redacted), with ZooKeeper's code and path and, for NOAUTH, the permission the
 * node's ACL did not give. Immutable and thread-safe; one per ZooKeeperLockBackend.
 */
final class ZooKeeperErrors {
    /** One store operation that is not an acquisition. */
    interface StoreCall<T> {
        T run() throws Exception;
    }

    private final String description;

    ZooKeeperErrors(String description) {
        this.description = description;
    }

    /** Runs {@code op}; a failure becomes BackendUnavailableException ("could not <what> lock ..."). */
    <T> T call(String name, String what, StoreCall<T> op) {
        try {
            return op.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(name, "interrupted; could not " + what, e);
        } catch (IllegalArgumentException refused) {
            throw refused;
        } catch (Exception e) {
            throw unavailable(name, "could not " + what, e);
        }
    }

    /** "<what> lock '<name>' on <store>: <reason>". */
    BackendUnavailableException unavailable(String name, String what, Throwable cause) {
        String reason = cause == null ? "" : ": " + describe(cause);
        return new BackendUnavailableException(
                what + " lock '" + name + "' on " + description + reason, name, description, cause);
    }

    /** The connection is suspended: the operation fails fast rather than block in Curator's retries. */
    BackendUnavailableException suspended(String name, String what, long sessionId) {
        return new BackendUnavailableException(
                what + " lock '" + name + "' on " + description
                        + ": the connection to ZooKeeper is suspended (session 0x" + Long.toHexString(sessionId)
                        + " may still be alive; retry once it reconnects)",
                name,
                description,
                null);
    }

    private static String describe(Throwable e) {
        if (e instanceof Listing.ListingTooLargeException) {
            return e.getMessage();
        }
        if (e instanceof KeeperException.NoAuthException ke) {
            return "ZooKeeper NOAUTH" + (ke.getPath() == null ? "" : " at " + ke.getPath())
                    + ": this client's identity lacks a permission the node's ACL requires (CREATE on a lock's node"
                    + " to acquire it, DELETE on it to release; the lock may belong to another application's identity;"
                    + " see the acl setting)";
        }
        if (e instanceof KeeperException ke) {
            return "ZooKeeper " + ke.code() + (ke.getPath() == null ? "" : " at " + ke.getPath());
        }
        return e.toString();
    }
}
