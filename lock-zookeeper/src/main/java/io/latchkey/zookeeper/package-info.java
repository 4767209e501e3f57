/**
 * The ZooKeeper backend: a fair lock queue of ephemeral sequential nodes on the Curator framework, with the
 * node's czxid as fencing token. The classes follow the backend shape of {@code docs/design.md} §5.2:
 * {@link io.latchkey.zookeeper.ZooKeeperBackendProvider}, {@link io.latchkey.zookeeper.ZooKeeperSettings},
 * {@code ZooKeeperConnection}, {@link io.latchkey.zookeeper.ZooKeeperLockBackend} and {@code ZooKeeperWaiting},
 * plus small classes for the acquire protocol, held grants, listing and orphan cleaning. It uses only
 * {@code io.latchkey}, {@code io.latchkey.spi}, Curator and ZooKeeper; never {@code io.latchkey.core}.
 */
package io.latchkey.zookeeper;
