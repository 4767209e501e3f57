/**
 * JMH benchmarks of Latchkey on ZooKeeper, beside the peer libraries Java teams would otherwise use for that store
 * and a raw baseline (the same store commands sent by hand), on real servers started on loopback by the
 * backend module's test fixtures (ZooKeeperServers, built on lock-servers).
 *
 * <p>Uses the public API, the SPI, the backend module and its fixtures; speed is measured here, never asserted.
 */
package io.latchkey.jmh.zookeeper;
