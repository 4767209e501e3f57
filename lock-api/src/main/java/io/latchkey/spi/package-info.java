/**
 * The service provider interface that a backend implements: {@link io.latchkey.spi.LockBackendProvider}
 * (found by {@code ServiceLoader}, one per URI scheme) and {@link io.latchkey.spi.LockBackend} with the records
 * it exchanges with the core, plus the helpers every backend shares, written once: {@code BackendUri} and
 * {@code Settings} (one URI model, one duration grammar), {@code Redaction}, {@code StoreErrors},
 * {@code Deadlines}, {@code DaemonThreads}, {@code Reachability} and {@code TimeSource}.
 *
 * <p>Depends on {@code io.latchkey} and the JDK only (never on {@code io.latchkey.core}); backends depend on
 * this package and {@code io.latchkey}, nothing else of lock-api. {@code @NullMarked}.
 */
@NullMarked
package io.latchkey.spi;

import org.jspecify.annotations.NullMarked;
