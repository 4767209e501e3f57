package io.latchkey.etcd;

import io.latchkey.etcd.fixtures.EtcdCluster;
import io.latchkey.servers.TestCertificates;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import io.latchkey.tck.TckSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole TCK against one real etcd member that serves clients only over TLS ({@code --cert-file
 * --key-file} on an {@code https} client URL); every client trusts the throw-away test CA through the
 * {@code tlsCa} setting.
 */
class EtcdTlsTckTest extends LockBackendTck {
    private static TestCertificates certificates;
    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        certificates = TestCertificates.create();
        etcd = EtcdCluster.singleTls(certificates, false);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
        if (certificates != null) {
            certificates.close();
        }
    }

    @Override
    protected LockBackend newBackend() {
        return EtcdTckSupport.newBackend(etcd);
    }

    /** The recipe groups run on EtcdSingleMemberTckTest: TLS changes the transport only. */
    @Override
    protected TckSettings settings() {
        return EtcdTckSupport.settings().toBuilder().recipeRules(false)
                .faultRules(false)
                .primitiveRules(false).build();
    }

    @Override
    protected TckFaults faults() {
        return EtcdTckSupport.faults(etcd);
    }
}
