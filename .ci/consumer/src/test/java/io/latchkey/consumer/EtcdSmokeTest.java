package io.latchkey.consumer;

import io.latchkey.etcd.fixtures.EtcdCluster;
import org.junit.jupiter.api.Test;

class EtcdSmokeTest {
    @Test
    void acquireAndReleaseOnEtcd() {
        try (EtcdCluster etcd = EtcdCluster.single()) {
            Smoke.acquireAndRelease(etcd.uri(), "etcd");
        }
    }
}
