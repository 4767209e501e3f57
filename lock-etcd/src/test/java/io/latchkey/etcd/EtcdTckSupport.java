package io.latchkey.etcd;

import io.etcd.jetcd.Client;
import io.latchkey.etcd.fixtures.EtcdCluster;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.TckFaults;
import io.latchkey.tck.TckSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What the TCK classes share: backend settings for a 2 s client lease, and the fault hooks on a fixture's cluster. */
final class EtcdTckSupport {
    /** etcd 3.4's smallest lease with default raft timing (1.5 election timeouts, rounded up). */
    static final Duration TTL = Duration.ofSeconds(2);

    private EtcdTckSupport() {}

    /** A client of the cluster, over TLS (and with the client certificate) if the cluster requires it. */
    static LockBackend newBackend(EtcdCluster cluster) {
        return EtcdLockBackend.connect(cluster.uri(), connectSettings(cluster));
    }

    /** A client of the cluster in another namespace (the setting every scheme accepts). */
    static java.util.Optional<LockBackend> newBackendInNamespace(EtcdCluster cluster, String namespace) {
        Map<String, String> settings = new HashMap<>(connectSettings(cluster));
        settings.put("namespace", namespace);
        return java.util.Optional.of(EtcdLockBackend.connect(cluster.uri(), settings));
    }

    /** A client whose every member is reached through a fault proxy, with the same settings. */
    static java.util.Optional<LockBackend> newBackendThrough(EtcdCluster cluster, io.latchkey.tck.FaultProxies proxies) {
        String members = cluster.hostPorts().stream()
                .map(proxies::route)
                .collect(java.util.stream.Collectors.joining(","));
        return java.util.Optional.of(EtcdLockBackend.connect("etcd://" + members, connectSettings(cluster)));
    }

    /** How a child JVM of a recipe rule connects: the same URI and settings. */
    /**
     * A child JVM's client lease lives 4 s, as a child's ZooKeeper session does: a JVM just started (and slowed further
     * by libfaketime, which intercepts every clock read) does not always send its keep-alives within a 2 s TTL, and
     * its key then vanished under a lock it believed held (the clock rule failed about half its runs).
     */
    static java.util.Optional<io.latchkey.tck.ProcessBackend> processBackend(EtcdCluster cluster) {
        Map<String, String> settings = new HashMap<>(connectSettings(cluster));
        settings.put("leaseTtl", "4s");
        return java.util.Optional.of(new io.latchkey.tck.ProcessBackend(cluster.uri(), settings));
    }

    static Map<String, String> connectSettings(EtcdCluster cluster) {
        Map<String, String> settings = new HashMap<>(cluster.connectSettings());
        settings.putAll(Map.of("leaseTtl", TTL.toSeconds() + "s", "requestTimeout", "3s", "waitRecheck", "1s"));
        return settings;
    }

    /**
     * A 1 s lock lease on the 2 s client lease: a grant is valid for its lease but never past the end the keeper has
     * confirmed for the client lease (keep-alives every TTL / 3), so the lock's lease is kept at half the TTL, as
     * ZooKeeper's TCK keeps it at half the session timeout, and a renewal for longer than the lease still extends it.
     */
    static TckSettings settings() {
        return TckSettings.defaults().toBuilder().shortLease(TTL.dividedBy(2)).build();
    }

    static TckFaults faults(EtcdCluster cluster) {
        return new TckFaults() {
            @Override
            public AutoCloseable outage() {
                cluster.control().pause();
                return () -> cluster.control().resume();
            }

            @Override
            public void killSession(LockBackend backend) {
                long lease = ((EtcdLockBackend) backend)
                        .leaseId()
                        .orElseThrow(() -> new IllegalStateException("the backend has no lease yet: " + backend));
                try (Client admin = cluster.newClient()) {
                    admin.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException("could not revoke lease " + Long.toHexString(lease) + ": " + e, e);
                }
            }

            @Override
            public void crash(LockBackend backend) {
                ((EtcdLockBackend) backend).crash(); // no revoke: its keys stay until the lease expires
            }
        };
    }
}
