package io.latchkey.mongodb;

import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.ProcessBackend;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole TCK against a real MongoDB deployment, when {@code LATCHKEY_MONGODB_URI} names one (a replica set is
 * best: {@code mongodb://h1,h2,h3/latchkey_tck?replicaSet=rs0}). No MongoDB server package exists for this platform,
 * so CI cannot start one: this class is skipped, with this reason, when the variable is unset, also under
 * {@code LATCHKEY_REQUIRE_SERVERS=true} (CI's mongod stand-in is {@link MongoJavaServerTckTest}). The outage and
 * network rules need control of the servers and are skipped here; the process and clock rules run.
 */
class MongoDeploymentTckTest extends LockBackendTck {
    static final String URI_VARIABLE = "LATCHKEY_MONGODB_URI";

    @BeforeAll
    static void requireDeployment() {
        String uri = System.getenv(URI_VARIABLE);
        Assumptions.assumeTrue(
                uri != null && !uri.isBlank(),
                URI_VARIABLE + " is not set: set it to a MongoDB deployment (mongodb://... or mongodb+srv://...) to run"
                        + " the TCK against a real mongod; MongoJavaServerTckTest runs it on mongo-java-server");
    }

    private static String uri() {
        return System.getenv(URI_VARIABLE);
    }

    @Override
    protected LockBackend newBackend() {
        return MongoLockBackend.connect(uri());
    }

    @Override
    protected Optional<LockBackend> newBackendInNamespace(String namespace) {
        return Optional.of(MongoLockBackend.connect(
                java.net.URI.create(uri()), java.util.Map.of(io.latchkey.spi.Namespaces.SETTING, namespace)));
    }

    @Override
    protected Optional<ProcessBackend> processBackend() {
        return Optional.of(ProcessBackend.of(uri()));
    }
}
