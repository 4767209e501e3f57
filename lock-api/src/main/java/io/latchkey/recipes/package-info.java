/**
 * Coordination recipes built on the public lock API only, so they work on every backend, a user's own included:
 * {@code Elector} (leader election whose terms carry the lock's fencing token), {@code ExclusiveTasks} (a task
 * runs only while its key is held and is cancelled the moment the key is lost) and {@code WorkDistributor} (N
 * items spread over the live instances with a per-instance cap; membership is itself a set of locks).
 *
 * <p>Depends on {@code io.latchkey} and {@code io.latchkey.spi} only, never on {@code io.latchkey.core}: a recipe
 * sees a {@link io.latchkey.LockClient} exactly as an application does. Every type is {@code @NullMarked}.
 */
@NullMarked
package io.latchkey.recipes;

import org.jspecify.annotations.NullMarked;
