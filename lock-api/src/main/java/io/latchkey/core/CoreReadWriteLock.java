package io.latchkey.core;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.spi.GrantKind;

/**
 * The core's {@link DistributedReadWriteLock}: two views of one name, each a {@link CoreLock} that asks the store for
 * its side ({@link GrantKind#READ}, {@link GrantKind#WRITE}). The acquire loop refuses a thread's upgrade; the store
 * decides everything else (sharing, exclusion, writer preference). Holds no state.
 */
final class CoreReadWriteLock implements DistributedReadWriteLock {
    private final String name;
    private final LockOptions options;
    private final CoreLock read;
    private final CoreLock write;
    private final String backend;
    private final CoreLockClient client;

    CoreReadWriteLock(CoreLockClient client, String name, LockOptions options) {
        this.name = name;
        this.options = options;
        this.read = new CoreLock(client, name, options, GrantKind.READ);
        this.write = new CoreLock(client, name, options, GrantKind.WRITE);
        this.backend = client.backend();
        this.client = client;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    @Override
    public DistributedLock readLock() {
        return read;
    }

    @Override
    public DistributedLock writeLock() {
        return write;
    }

    @Override
    public LockHandle downgrade(LockHandle writeGrant) {
        return Downgrades.downgrade(client, name, options, writeGrant);
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock['" + name + "' on " + backend + ", " + options + "]";
    }
}
