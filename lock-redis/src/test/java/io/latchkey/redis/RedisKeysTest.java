package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.tck.ValidationRules;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/** Key layout: one slot per name, no collisions, no name that looks like another name's key. */
class RedisKeysTest {
    private final RedisKeys keys = new RedisKeys("latchkey:");

    @Test
    void everyKeyOfANameSharesOneClusterSlot() {
        for (String name : ValidationRules.hostileValidNames()) {
            RedisKeys.NameKeys k = keys.of(name);
            int slot = JedisClusterCRC16.getSlot(k.lock());
            assertThat(JedisClusterCRC16.getSlot(k.fence())).as(name).isEqualTo(slot);
            assertThat(JedisClusterCRC16.getSlot(k.wake())).as(name).isEqualTo(slot);
            assertThat(JedisClusterCRC16.getSlot(k.waiting())).as(name).isEqualTo(slot);
            // the semaphore's and the read-write lock's scripts take their keys together too (redis-cluster://)
            RedisKeys.SemaphoreKeys sem = keys.semaphore(name);
            for (byte[] key : List.of(sem.state(), sem.expiries(), sem.wake(), sem.waiting())) {
                assertThat(JedisClusterCRC16.getSlot(key)).as(name).isEqualTo(slot);
            }
            RedisKeys.ReadWriteKeys rw = keys.readWrite(name);
            for (byte[] key : List.of(rw.state(), rw.readers(), rw.intents(), rw.wake(), rw.waiting())) {
                assertThat(JedisClusterCRC16.getSlot(key)).as(name).isEqualTo(slot);
            }
        }
    }

    @Test
    void hostileNamesNeverCollideAndNeverLookLikeAnotherNamesKeys() {
        List<String> names = ValidationRules.hostileValidNames();
        Set<String> all = new HashSet<>();
        for (String name : names) {
            RedisKeys.NameKeys k = keys.of(name);
            for (byte[] key : List.of(k.lock(), k.fence(), k.wake(), k.waiting())) {
                assertThat(all.add(new String(key, StandardCharsets.UTF_8)))
                        .as("duplicate key for %s", name)
                        .isTrue();
            }
        }
        assertThat(all).hasSize(names.size() * 4);
        assertThat(new String(keys.of("a").lock(), StandardCharsets.UTF_8)).isEqualTo("latchkey:{61}:lock");
        assertThat(new String(keys.of("a:fence").lock(), StandardCharsets.UTF_8))
                .isEqualTo("latchkey:{613a66656e6365}:lock");
        assertThat(new String(keys.of("{a}").fence(), StandardCharsets.UTF_8)).isEqualTo("latchkey:{7b617d}:fence");
    }

    @Test
    void lockKeysDecodeBackToTheirNames() {
        for (String name : ValidationRules.hostileValidNames()) {
            assertThat(keys.nameOfLockKey(keys.of(name).lock())).contains(name);
        }
        assertThat(keys.nameOfLockKey("latchkey:{61}:fence".getBytes(StandardCharsets.UTF_8)))
                .isEmpty();
        assertThat(keys.nameOfLockKey("other:{61}:lock".getBytes(StandardCharsets.UTF_8)))
                .isEmpty();
        assertThat(keys.nameOfLockKey("latchkey:{6}:lock".getBytes(StandardCharsets.UTF_8)))
                .isEmpty();
    }

    @Test
    void listPatternKeepsNamePrefixesAndEscapesGlobsInTheKeyPrefix() {
        assertThat(keys.lockPattern("ab")).isEqualTo("latchkey:{6162*}:lock");
        assertThat(new RedisKeys("app*[1]?:").lockPattern("")).isEqualTo("app\\*\\[1\\]\\?:{*}:lock");
    }

    /** The name cache: a name's keys are built once, and names that share a slot never get each other's keys. */
    @Test
    void cachedKeysAreTheNamesOwnEvenWhenNamesShareASlot() {
        assertThat(keys.of("cached")).isSameAs(keys.of("cached"));
        // "Aa" and "BB" have the same hashCode, so the same slot: each evicts the other and gets its own keys
        assertThat("Aa".hashCode()).isEqualTo("BB".hashCode());
        for (int round = 0; round < 3; round++) {
            for (String name : List.of("Aa", "BB")) {
                RedisKeys.NameKeys k = keys.of(name);
                RedisKeys.NameKeys fresh = new RedisKeys("latchkey:").of(name);
                assertThat(new String(k.lock(), StandardCharsets.UTF_8))
                        .isEqualTo(new String(fresh.lock(), StandardCharsets.UTF_8))
                        .isEqualTo("latchkey:{" + hex(name) + "}:lock");
                assertThat(k.fence()).isEqualTo(fresh.fence());
                assertThat(k.wake()).isEqualTo(fresh.wake());
                assertThat(k.waiting()).isEqualTo(fresh.waiting());
            }
        }
    }

    /** A grant carries its encoded keys; one made under another key prefix is encoded again, not trusted. */
    @Test
    void grantBytesAreReusedOnlyByTheKeysThatMadeThem() {
        RedisKeys other = new RedisKeys("elsewhere:");
        io.latchkey.spi.Grant g = new io.latchkey.spi.Grant(
                "n", "owner-1", 42, 0, new GrantBytes(keys, keys.of("n"), new byte[] {1}, new byte[] {2}));
        assertThat(GrantBytes.of(g, keys)).isSameAs(g.state());
        GrantBytes again = GrantBytes.of(g, other);
        assertThat(new String(again.keys.lock(), StandardCharsets.UTF_8)).isEqualTo("elsewhere:{6e}:lock");
        assertThat(new String(again.owner, StandardCharsets.UTF_8)).isEqualTo("owner-1");
        assertThat(new String(again.token, StandardCharsets.UTF_8)).isEqualTo("42");
        assertThat(g.toString()).doesNotContain("[B@");
    }

    private static String hex(String name) {
        StringBuilder sb = new StringBuilder();
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            sb.append(String.format("%02x", b));
        }
        return sb.toString();
    }
}
