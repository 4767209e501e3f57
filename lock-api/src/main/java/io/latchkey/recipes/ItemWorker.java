package io.latchkey.recipes;

import io.latchkey.LockHandle;

/**
 * What a {@link WorkDistributor} runs for the items this instance claims. The same cancellation contract as
 * {@link ExclusiveTask}: {@link #onAssigned} runs on a thread of its own while the item's lock is held and is
 * interrupted (and {@code handle.isValid()} turns false) the moment the item is lost or given up.
 */
public interface ItemWorker {

    /**
     * The item is now this instance's. This may run the item's work until interrupted, or start it elsewhere and
     * return: the item stays claimed after it returns, until it is given up or lost.
     *
     * @param item the item claimed
     * @param handle the item's lock; pass its fencing token to what the work writes
     * @throws Exception ends the work as a return does: the item stays claimed until given up or lost
     */
    void onAssigned(String item, LockHandle handle) throws Exception;

    /**
     * The item is no longer this instance's (given up to even the load, lost, or the distributor closed). Called on
     * the distributor's thread after {@link #onAssigned} returned; must not block for long.
     *
     * @param item the item given up
     */
    default void onRevoked(String item) {}
}
