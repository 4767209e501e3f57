/**
 * The etcd v3 backend on jetcd: one lease per client, a contender key per acquisition whose create revision
 * orders a fair queue and is the fencing token, and a watch on the predecessor's key. The classes follow the
 * backend shape of {@code docs/design.md} §5.2: {@link io.latchkey.etcd.EtcdBackendProvider},
 * {@link io.latchkey.etcd.EtcdSettings}, {@code EtcdConnection}, {@link io.latchkey.etcd.EtcdLockBackend},
 * {@code EtcdWaiting} and {@code EtcdRenewal}, plus small classes named for what they do ({@code Contention},
 * {@code EtcdListing}, {@code Orphans}, {@code LockKeys}). It uses only {@code io.latchkey}, {@code io.latchkey.spi}
 * and jetcd; never {@code io.latchkey.core}.
 */
package io.latchkey.etcd;
