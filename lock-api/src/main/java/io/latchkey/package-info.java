/**
 * Latchkey's public API: what an application uses to take distributed locks. {@link io.latchkey.Latchkey}
 * connects to a store by URI and gives a {@link io.latchkey.LockClient}; a client makes
 * {@link io.latchkey.DistributedLock}s, whose acquisitions give {@link io.latchkey.LockHandle}s; options,
 * retry strategies, listeners and the exceptions live here too.
 *
 * <p>Depends on the JDK, SLF4J and JSpecify only. The one way in to the internals is the entry point
 * {@code Latchkey}, which builds the core's client; no other type here names {@code io.latchkey.core}.
 * Every type is {@code @NullMarked}: nothing is null unless marked {@code @Nullable}.
 */
@NullMarked
package io.latchkey;

import org.jspecify.annotations.NullMarked;
