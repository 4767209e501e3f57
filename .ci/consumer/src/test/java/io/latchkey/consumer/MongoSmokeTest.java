package io.latchkey.consumer;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.junit.jupiter.api.Test;

class MongoSmokeTest {
    @Test
    void acquireAndReleaseOnMongoDb() {
        MongoServer server = new MongoServer(new MemoryBackend());
        try {
            Smoke.acquireAndRelease("mongodb://127.0.0.1:" + server.bind().getPort() + "/smoke", "mongodb");
        } finally {
            server.shutdownNow();
        }
    }
}
