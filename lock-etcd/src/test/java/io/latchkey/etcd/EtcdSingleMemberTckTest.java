package io.latchkey.etcd;

import io.latchkey.etcd.fixtures.EtcdCluster;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import io.latchkey.tck.TckSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The whole TCK against one real etcd member (2 s lease TTL, the smallest etcd 3.4 allows by default). */
class EtcdSingleMemberTckTest extends LockBackendTck {
    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.single();
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Override
    protected LockBackend newBackend() {
        return EtcdTckSupport.newBackend(etcd);
    }

    @Override
    protected java.util.Optional<LockBackend> newBackendInNamespace(String namespace) {
        return EtcdTckSupport.newBackendInNamespace(etcd, namespace);
    }

    @Override
    protected TckSettings settings() {
        return EtcdTckSupport.settings();
    }

    @Override
    protected java.util.Optional<LockBackend> newBackendThrough(io.latchkey.tck.FaultProxies proxies) {
        return EtcdTckSupport.newBackendThrough(etcd, proxies);
    }

    @Override
    protected java.util.Optional<io.latchkey.tck.ProcessBackend> processBackend() {
        return EtcdTckSupport.processBackend(etcd);
    }

    @Override
    protected TckFaults faults() {
        return EtcdTckSupport.faults(etcd);
    }
}
