package io.latchkey.etcd;

import io.latchkey.etcd.fixtures.EtcdCluster;
import io.latchkey.servers.TestCertificates;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import io.latchkey.tck.TckSettings;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK's core groups against one real etcd member that serves clients only over TLS ({@code --cert-file
 * --key-file} on an {@code https} client URL); every client trusts the throw-away test CA through the
 * {@code tlsCa} setting.
 *
 * <p>Least privilege (lock-etcd/README.md, "Least privilege"): authentication is on, and every backend signs in as a
 * user whose one role may read and write the keys under its namespace's prefix ({@code tck-tls/}, not the default,
 * so the grant is visibly the namespace's) and nothing else. Only the fault hook that revokes a client's lease
 * (killSession) signs in as root.
 */
class EtcdTlsTckTest extends LockBackendTck {
    static final String NAMESPACE = "tck-tls";
    private static final String USER = "latchkey";
    private static final String PASSWORD = "tck-Lock-Pw-31m";

    private static TestCertificates certificates;
    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        certificates = TestCertificates.create();
        etcd = EtcdCluster.singleTls(certificates, false);
        etcd.addPrefixUser(USER, PASSWORD, "latchkey", NAMESPACE + "/");
        etcd.enableAuth("tck-Root-Pw-80c");
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
        return connect(NAMESPACE);
    }

    /** Namespaces below the least-privileged role's prefix: NAMESPACE/<namespace>. */
    @Override
    protected java.util.Optional<LockBackend> newBackendInNamespace(String namespace) {
        return java.util.Optional.of(connect(NAMESPACE + "/" + namespace));
    }

    private static LockBackend connect(String namespace) {
        Map<String, String> settings = new HashMap<>(EtcdTckSupport.connectSettings(etcd));
        settings.putAll(Map.of("user", USER, "password", PASSWORD, "namespace", namespace));
        return EtcdLockBackend.connect(etcd.uri(), settings);
    }

    /** The recipe groups run on EtcdSingleMemberTckTest: TLS changes the transport only. */
    @Override
    protected TckSettings settings() {
        return EtcdTckSupport.settings().toBuilder().coreRulesOnly().build();
    }

    @Override
    protected TckFaults faults() {
        return EtcdTckSupport.faults(etcd);
    }
}
