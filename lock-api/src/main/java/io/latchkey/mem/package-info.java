/**
 * The in-memory backend ({@code mem:} URIs): a complete {@code LockBackend} inside one JVM, for tests, for
 * single-process applications and as the reference the TCK is checked against; {@link io.latchkey.mem.VirtualClock}
 * gives tests virtual time.
 *
 * <p>Depends on {@code io.latchkey} and {@code io.latchkey.spi}, like any backend, and on one core helper,
 * {@code io.latchkey.core.WallClock} (display-only wall-clock readings that cannot fail). {@code @NullMarked}.
 */
@NullMarked
package io.latchkey.mem;

import org.jspecify.annotations.NullMarked;
