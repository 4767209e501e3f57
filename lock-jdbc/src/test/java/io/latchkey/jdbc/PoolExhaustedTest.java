package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Session mode pins one connection per held lock: a pool too small for the locks held at once says so. */
class PoolExhaustedTest {

    @Test
    void sessionModeSaysWhichSettingToRaise() {
        LockClient client = Latchkey.client(new JdbcBackendProvider()
                .create(
                        URI.create("jdbc:h2:mem:pool-exhausted;DB_CLOSE_DELAY=-1"),
                        Map.of("mode", "session", "poolSize", "2", "connectTimeout", "500ms")));
        try (client;
                LockHandle a = client.lock("one").tryAcquire().orElseThrow();
                LockHandle b = client.lock("two").tryAcquire().orElseThrow()) {
            Throwable e = catchThrowable(() -> client.lock("three").acquire(Duration.ofSeconds(2)));
            System.out.println(e);
            assertThat(e).isInstanceOf(BackendUnavailableException.class);
            assertThat(e.getMessage())
                    .contains("pool size 2 exhausted (2 in use")
                    .contains("session mode holds one connection per held lock")
                    .contains("raise the poolSize setting");
        }
    }
}
