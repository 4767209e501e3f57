package io.latchkey.core;

import io.latchkey.LockListener;
import io.latchkey.LockLoss;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The registered {@link LockListener}s; a failing listener is logged and never breaks the lock. */
final class Listeners {
    private static final Logger log = LoggerFactory.getLogger(Listeners.class);

    private final CopyOnWriteArrayList<LockListener> listeners = new CopyOnWriteArrayList<>();

    void add(LockListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        listeners.add(listener);
    }

    void remove(LockListener listener) {
        listeners.remove(listener);
    }

    void acquired(String name, long token, long waitedNanos) {
        if (!listeners.isEmpty()) {
            Duration waited = Duration.ofNanos(waitedNanos);
            each(l -> l.acquired(name, token, waited));
        }
    }

    void acquireFailed(String name, long waitedNanos, Throwable reason) {
        if (!listeners.isEmpty()) {
            Duration waited = Duration.ofNanos(waitedNanos);
            each(l -> l.acquireFailed(name, waited, reason));
        }
    }

    /** @param clock the grant's clock, read only when someone listens; {@code sinceNanos} its reading at the start */
    void released(String name, long token, TimeSource clock, long sinceNanos) {
        if (!listeners.isEmpty()) {
            Duration held = Duration.ofNanos(clock.nanoTime() - sinceNanos);
            each(l -> l.released(name, token, held));
        }
    }

    void renewed(String name, long token) {
        if (!listeners.isEmpty()) {
            each(l -> l.renewed(name, token));
        }
    }

    void renewalFailed(String name, long token, Throwable reason) {
        if (!listeners.isEmpty()) {
            each(l -> l.renewalFailed(name, token, reason));
        }
    }

    void lost(LockLoss loss) {
        if (!listeners.isEmpty()) {
            each(l -> l.lost(loss));
        }
    }

    private void each(Consumer<LockListener> call) {
        for (LockListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException e) {
                log.warn("Lock listener {} failed; ignored", l, e);
            }
        }
    }
}
