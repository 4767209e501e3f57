package io.latchkey.redis;

import java.util.function.Function;
import redis.clients.jedis.CommandArguments;

/*
 * One script call of a round, the same on every node: the script, its keys and arguments, and how its reply is read.
 * A round whose every node lends pooled connections pipelines it (PipelinedRound: written to all nodes before any
 * reply is read, on the caller's thread); any other round runs it as the Function it is (NodeRound).
 * Immutable apart from the EVALSHA arguments it builds once, on the thread that sends the round (the caller does not
 * change the parameter arrays after building it).
 */
final class ScriptCall<T> implements Function<RedisNode, T> {
    final LuaScript script;
    final int keyCount;
    final byte[][] params;
    private final Function<Object, T> parse;
    /** The EVALSHA command, built once for every node of a pipelined round (sending only reads it). */
    private CommandArguments evalsha;

    ScriptCall(LuaScript script, int keyCount, Function<Object, T> parse, byte[]... params) {
        this.script = script;
        this.keyCount = keyCount;
        this.params = params;
        this.parse = parse;
    }

    /** Runs the call on {@code node} and reads its reply (a round on the executor, or on one node, calls this). */
    @Override
    public T apply(RedisNode node) {
        return parse(node.eval(script, keyCount, params));
    }

    /** The EVALSHA command for this call; built on first use by the caller's thread, which alone sends a round. */
    CommandArguments evalsha() {
        CommandArguments args = evalsha;
        if (args == null) {
            args = RedisNode.evalsha(script, keyCount, params);
            evalsha = args;
        }
        return args;
    }

    /** Reads a node's reply to this call. */
    T parse(Object reply) {
        return parse.apply(reply);
    }
}
