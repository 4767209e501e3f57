package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.redis.fixtures.RedisTopologyServers;
import io.latchkey.servers.RunningServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The least-privilege grant on Sentinel and Cluster: the single-node grant plus the topology rules the README gives
 * for each, on every data node, and nothing else. Every primitive runs as that user, and no data node's ACL LOG shows a
 * refusal afterwards (a refused BLPOP would only make waiters poll, so the log is the proof, not the outcome alone).
 */
@Timeout(180)
class RedisTopologyLeastPrivilegeTest {
    private static final String PASSWORD = "topology-Pw-41q-never-shown";

    private static String[] userArguments(List<String> topologyRules) {
        return userArguments(RedisServers.LOCK_USER, topologyRules);
    }

    private static String[] userArguments(String user, List<String> topologyRules) {
        List<String> rules = new ArrayList<>(RedisServers.lockUserRules("latchkey:", List.of()));
        rules.addAll(topologyRules);
        return RedisServers.userArguments(user, PASSWORD, rules);
    }

    @Test
    @DisplayName("Sentinel: the grant plus the README's Sentinel rules runs every primitive without a refusal")
    void sentinel() throws Exception {
        try (RedisTopologyServers.SentinelGroup group =
                RedisTopologyServers.sentinelGroup(userArguments(RedisTopologyRules.SENTINEL))) {
            String uri = group.uri().replace("redis-sentinel://", "redis-sentinel://" + RedisServers.LOCK_USER + ":"
                    + PASSWORD + "@");
            try (LockClient a = Latchkey.connect(uri, Map.of("timeout", "2s"));
                    LockClient b = Latchkey.connect(uri, Map.of("timeout", "2s"))) {
                RedisLeastPrivilegeTest.useEveryPrimitive(a, b, "lp-sentinel/");
            }
            for (RunningServer node : group.all().subList(0, 3)) {
                RedisLeastPrivilegeTest.assertNoAclRefusal(node);
            }
        }
    }

    @Test
    @DisplayName("Cluster: the grant plus the README's Cluster rules runs every primitive without a refusal")
    void cluster() throws Exception {
        List<String> args = new ArrayList<>(List.of(userArguments(RedisTopologyRules.CLUSTER)));
        args.addAll(List.of(userArguments("no-slots", List.of("+role"))));
        try (RedisTopologyServers.Cluster cluster = RedisTopologyServers.cluster(args.toArray(String[]::new))) {
            assertThatThrownBy(() -> Latchkey.connect(
                            cluster.uri().replace("redis-cluster://", "redis-cluster://no-slots:" + PASSWORD + "@")))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageStartingWith("Could not connect to redis-cluster://")
                    .hasMessageContaining("(missing privilege: the ACL user needs +cluster|slots;")
                    .hasMessageNotContaining(PASSWORD)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
            String uri = cluster.uri().replace("redis-cluster://", "redis-cluster://" + RedisServers.LOCK_USER + ":"
                    + PASSWORD + "@");
            try (LockClient a = Latchkey.connect(uri, Map.of("timeout", "2s"));
                    LockClient b = Latchkey.connect(uri, Map.of("timeout", "2s"))) {
                RedisLeastPrivilegeTest.useEveryPrimitive(a, b, "{lp-cluster}/");
            }
            for (RunningServer node : cluster.nodes()) {
                RedisLeastPrivilegeTest.assertNoAclRefusal(node);
            }
        }
    }

    /**
     * The topology rules, as the README gives them: a Cluster client reads the slot map ({@code CLUSTER SLOTS}) at
     * connect and after a MOVED reply, and {@code list} asks each node its {@code ROLE} to scan the masters only; a
     * Sentinel client asks the Sentinels, not the data nodes, so the data nodes need nothing more (the Sentinels'
     * own user, if they have one, is {@code sentinelUser}).
     */
    static final class RedisTopologyRules {
        static final List<String> SENTINEL = List.of();
        static final List<String> CLUSTER = List.of("+cluster|slots", "+role");

        private RedisTopologyRules() {}
    }
}
