/**
 * JMH benchmarks that need no server: what the core costs per cycle on {@code mem:}, through the full API and
 * through the raw SPI. The backends' benchmarks live in the sub-packages, one per store.
 *
 * <p>Uses the public API, the SPI and the in-memory backend; speed is measured here, never asserted.
 */
package io.latchkey.jmh;
