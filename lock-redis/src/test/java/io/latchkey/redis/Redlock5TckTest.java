package io.latchkey.redis;

import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The whole TCK on Redlock over 5 independent redis-server processes (quorum 3). */
class Redlock5TckTest extends RedlockTckBase {
    private static List<RunningServer> servers;

    @BeforeAll
    static void startServers() {
        servers = RedisServers.several(5);
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.forEach(RunningServer::close);
        }
    }

    /** The recipe groups run on Redlock3TckTest; five nodes change the quorum, not what the recipes use. */
    @Override
    protected io.latchkey.tck.TckSettings settings() {
        return io.latchkey.tck.TckSettings.defaults().toBuilder()
                .coreRulesOnly()
                .build();
    }

    @Override
    List<RunningServer> servers() {
        return servers;
    }
}
