package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.RedisOutputStream;

/** EVALSHA built without a wrapper per parameter: what Jedis writes for it must be what it writes for its own. */
class EvalshaArgumentsTest {
    private static final LuaScript SCRIPT = RedisScripts.RENEW_MANY;

    @Test
    @DisplayName("the bytes sent are those of Jedis's own CommandArguments with the same arguments")
    void sendsWhatJedisWouldSend() throws IOException {
        byte[][] params = params(513); // a renewal batch of 128 grants: 2 keys and 2 arguments each, and the lease
        assertThat(sent(RedisNode.evalsha(SCRIPT, 256, params))).isEqualTo(sent(jedisOwn(256, params)));
        byte[][] few = params(3);
        assertThat(sent(RedisNode.evalsha(SCRIPT, 2, few))).isEqualTo(sent(jedisOwn(2, few)));
    }

    @Test
    @DisplayName("one command sent from several threads at once is written whole by each")
    void oneCommandSentFromSeveralThreadsAtOnce() throws Exception {
        CommandArguments args = RedisNode.evalsha(SCRIPT, 64, params(160));
        byte[] expected = sent(jedisOwn(64, params(160)));
        List<CompletableFuture<byte[]>> sends = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            sends.add(CompletableFuture.supplyAsync(() -> {
                byte[] last = null;
                for (int round = 0; round < 200; round++) {
                    last = sent(args);
                    if (!java.util.Arrays.equals(last, expected)) {
                        return last;
                    }
                }
                return last;
            }));
        }
        for (CompletableFuture<byte[]> send : sends) {
            assertThat(send.get()).isEqualTo(expected);
        }
        assertThat(args.getCommand()).isEqualTo(Protocol.Command.EVALSHA);
        assertThat(args.size()).isEqualTo(163);
    }

    private static CommandArguments jedisOwn(int keyCount, byte[][] params) {
        CommandArguments args = new CommandArguments(Protocol.Command.EVALSHA);
        args.add(SCRIPT.sha);
        args.add(Integer.toString(keyCount).getBytes(StandardCharsets.US_ASCII));
        for (byte[] p : params) {
            args.add(p);
        }
        return args;
    }

    private static byte[][] params(int count) {
        byte[][] out = new byte[count][];
        for (int i = 0; i < count; i++) {
            out[i] = ("{lock-" + i + "}:arg").getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static byte[] sent(CommandArguments args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RedisOutputStream out = new RedisOutputStream(bytes);
        try {
            Protocol.sendCommand(out, args);
            out.flush();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
