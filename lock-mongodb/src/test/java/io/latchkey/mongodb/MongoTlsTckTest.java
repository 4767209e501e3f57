package io.latchkey.mongodb;

import io.latchkey.servers.TestCertificates;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckFaults;
import io.latchkey.tck.TckSettings;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK's core groups over TLS: mongo-java-server speaking TLS only, with the test CA's server certificate, and every
 * client verifying it (and the host name) through the {@code tlsCa} setting, not the JVM's trust store. The recipe,
 * fault and primitive groups run on {@link MongoJavaServerTckTest}: TLS changes the transport only. The emulator checks
 * no user or role, so least privilege is documented (module README) and not proven here.
 */
class MongoTlsTckTest extends LockBackendTck {
    private static TestCertificates certs;
    private static EmbeddedMongo mongo;

    @BeforeAll
    static void startServer() {
        certs = TestCertificates.create();
        mongo = new EmbeddedMongo(certs);
    }

    @AfterAll
    static void stopServer() {
        if (mongo != null) {
            mongo.close();
        }
        if (certs != null) {
            certs.close();
        }
    }

    @Override
    protected LockBackend newBackend() {
        return MongoLockBackend.connect(mongo.uri() + "?tlsCa=" + certs.caCertificate());
    }

    @Override
    protected Optional<LockBackend> newBackendInNamespace(String namespace) {
        return Optional.of(MongoLockBackend.connect(
                mongo.uri() + "?tlsCa=" + certs.caCertificate() + "&namespace=" + namespace));
    }

    @Override
    protected TckSettings settings() {
        return TckSettings.defaults().toBuilder()
                .coreRulesOnly()
                .build();
    }

    @Override
    protected TckFaults faults() {
        return new TckFaults() {
            @Override
            public AutoCloseable outage() {
                return mongo.outage();
            }
        };
    }
}
