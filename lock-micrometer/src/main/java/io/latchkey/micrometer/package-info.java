/**
 * Micrometer metrics for Latchkey: {@link io.latchkey.micrometer.LatchkeyMetrics} binds any
 * {@link io.latchkey.LockClient} to a {@code MeterRegistry} through the public {@link io.latchkey.LockListener}.
 */
package io.latchkey.micrometer;
