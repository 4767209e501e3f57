/**
 * JMH benchmarks of Latchkey on SQL databases (PostgreSQL, MariaDB), beside the peer libraries Java teams would
 * otherwise use (ShedLock, Spring Integration) and a raw baseline (the same SQL sent by hand), on real servers
 * started on loopback by lock-jdbc's test fixtures (PostgresFixture and MariaDbFixture, built on lock-servers).
 *
 * <p>Uses the public API, the SPI, lock-jdbc and its fixtures; speed is measured here, never asserted.
 */
package io.latchkey.jmh.jdbc;
