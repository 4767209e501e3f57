/**
 * JMH benchmarks of Latchkey on MongoDB beside a raw baseline (the fewest driver calls a lock needs), through the
 * official driver, against mongo-java-server running in the benchmark's JVM: no MongoDB server package exists for
 * this platform, so the figures compare client paths on one emulated server, not MongoDB's own speed. ShedLock's
 * Mongo provider is not served by this machine's Maven mirror (shedlock-provider-mongo: every version refused), so
 * it is not in the suite.
 *
 * <p>Uses the public API, the SPI and the backend module; speed is measured here, never asserted.
 */
package io.latchkey.jmh.mongodb;
