package io.latchkey.testing;

import io.latchkey.spi.ForwardingLockBackend;
import io.latchkey.spi.LockBackend;

/** Forwards every call (the SPI's ForwardingLockBackend); tests override what they change. */
public class ForwardingBackend extends ForwardingLockBackend {
    public ForwardingBackend(LockBackend delegate) {
        super(delegate);
    }
}
