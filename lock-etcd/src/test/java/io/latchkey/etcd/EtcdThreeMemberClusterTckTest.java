package io.latchkey.etcd;

import io.latchkey.etcd.fixtures.EtcdCluster;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import io.latchkey.tck.TckSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The whole TCK against a real 3-member etcd cluster on loopback (clients spread over all members). */
class EtcdThreeMemberClusterTckTest extends LockBackendTck {
    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.start(3);
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

    /** The recipe groups run on EtcdSingleMemberTckTest: three members change the server side. */
    @Override
    protected TckSettings settings() {
        return EtcdTckSupport.settings().toBuilder().coreRulesOnly().build();
    }

    @Override
    protected TckFaults faults() {
        return EtcdTckSupport.faults(etcd);
    }
}
