package io.latchkey.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.util.UUID;

/** One acquire and release through the public API, as the README's quickstart does it. */
final class Smoke {
    private Smoke() {}

    static void acquireAndRelease(String uri, String scheme) {
        try (LockClient client = Latchkey.connect(uri)) {
            assertTrue(client.backend().startsWith(scheme), () -> "backend " + client.backend());
            String name = "consumer-smoke-" + UUID.randomUUID();
            LockHandle handle = client.lock(name).tryAcquire().orElseThrow();
            assertTrue(handle.fencingToken() > 0, "a fencing token");
            assertTrue(client.inspect(name).isPresent(), "held in the store");
            assertTrue(handle.release(), "released");
            assertFalse(client.inspect(name).isPresent(), "gone from the store");
            assertEquals(0, client.held().size());
        }
    }
}
