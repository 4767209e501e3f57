package io.latchkey;

/**
 * A lock that was held has been lost (see {@link LockLoss.Reason}); work done under it may have overlapped
 * with another holder's. Thrown by {@link DistributedLock#runExclusive} when the lock was lost while the
 * task ran.
 */
public class LockLostException extends LockException {
    private static final long serialVersionUID = 1L;

    private final transient LockLoss loss;

    /**
     * The exception for a loss.
     *
     * @param loss the loss
     * @param backend the backend's description, without a password
     */
    public LockLostException(LockLoss loss, String backend) {
        super(
                "Lock '" + loss.name() + "' on " + backend + " was lost (" + loss.reason() + "): " + loss.detail(),
                loss.name(),
                backend,
                loss.cause());
        this.loss = loss;
    }

    /**
     * The loss that caused this exception.
     *
     * @return the loss
     */
    public LockLoss loss() {
        return loss;
    }
}
