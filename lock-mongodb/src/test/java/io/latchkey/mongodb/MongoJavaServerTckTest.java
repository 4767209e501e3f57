package io.latchkey.mongodb;

import io.latchkey.spi.LockBackend;
import io.latchkey.tck.FaultProxies;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.ProcessBackend;
import io.latchkey.tck.TckFaults;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole TCK through the real MongoDB driver against mongo-java-server in this JVM (no MongoDB server package
 * exists for this platform): the algorithm and the driver are the production ones; the server is an emulation, which
 * the module README says. The emulator presents itself as a standalone server, so waiters poll and NATIVE_WAIT is not
 * claimed here: its change streams send update events without the document's id (MongoWaitingTest keeps a canary on
 * that), so a release could not wake anyone through them. {@code MongoDeploymentTckTest} runs the same rules, the
 * NATIVE_WAIT ones included, against a real deployment.
 */
class MongoJavaServerTckTest extends LockBackendTck {
    private static EmbeddedMongo mongo;

    @BeforeAll
    static void startServer() {
        mongo = new EmbeddedMongo();
    }

    @AfterAll
    static void stopServer() {
        if (mongo != null) {
            mongo.close();
        }
    }

    @Override
    protected LockBackend newBackend() {
        return MongoLockBackend.connect(mongo.uri());
    }

    @Override
    protected Optional<LockBackend> newBackendThrough(FaultProxies proxies) {
        return Optional.of(MongoLockBackend.connect("mongodb://" + proxies.route(mongo.hostPort()) + "/latchkey"));
    }

    @Override
    protected Optional<LockBackend> newBackendInNamespace(String namespace) {
        return Optional.of(MongoLockBackend.connect(mongo.uri() + "?namespace=" + namespace));
    }

    @Override
    protected Optional<ProcessBackend> processBackend() {
        return Optional.of(ProcessBackend.of(mongo.directUri()));
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
