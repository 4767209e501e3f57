/**
 * The internal core, not exported by the module: the client that turns the API's calls into SPI calls.
 * {@code CoreLockClient} owns a client's grants and threads; {@code AcquireLoop} waits and retries;
 * {@code HeldLock} is one grant from acquisition to release or loss, its own state lock ({@code GrantStateLock}),
 * with its {@code Watchdog} (renewal and the loss deadline), {@code LossSignal} and, for backends that renew many
 * grants in one call, the client's {@code RenewalBatcher} (with the {@code RenewalSlot}s where renewed grants wait
 * for their next renewal); {@code LocalGates} keeps one contender per name per client and is where the client finds
 * the grant it holds under a key; provider discovery maps URI schemes to backends.
 *
 * <p>Depends on {@code io.latchkey} and {@code io.latchkey.spi}; backends and the CLI never depend on it.
 * Classes are {@code @NullMarked} one by one (the provider registry and discovery not yet).
 */
package io.latchkey.core;
