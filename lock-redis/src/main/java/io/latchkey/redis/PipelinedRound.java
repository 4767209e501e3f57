package io.latchkey.redis;

import java.util.List;
import java.util.concurrent.Executor;
import redis.clients.jedis.Jedis;

/*
 * A round that waits for every node, run on the caller's thread with no thread hop: the call is written to every node
 * first (each on its own pooled connection, flushed at once), so all nodes work on it at the same time, and the
 * replies are then read in node order. The round therefore takes as long as its slowest node, as a round on the
 * executor that waits for every node does, without handing each node's call to another thread and back (the hops
 * cost more than a loopback reply). Each read is bounded by what is left of the round's deadline, so a frozen node
 * costs the round its timeout and no more; a node that does not answer in time counts as failed, and its connection
 * is dropped with its late reply, in the background (the pool opens a replacement at once, which a frozen server
 * would hold up). A pooled connection found broken (the server restarted while it was idle) is
 * retried once on a fresh one, as RedisNode.eval does. The caller (RedisConnection.round) marks a node whose call
 * failed, which is then asked on the executor until it answers again (RedisNode.pipelines()): opening a connection to
 * a frozen server would block the caller beyond the deadline.
 *
 * Concurrency design. No shared state: the connections are the caller's until the round returns them, and the
 * replies are the caller's arrays. Unlike a round on the executor, an interrupt does not cut the wait short; it stays
 * set, and the wait is bounded by the timeout anyway.
 */
final class PipelinedRound {
    private PipelinedRound() {}

    /** Whether a round on {@code nodes} can be pipelined: more than one node, each lending pooled connections. */
    static boolean applies(List<RedisNode> nodes) {
        if (nodes.size() < 2) {
            return false;
        }
        for (RedisNode node : nodes) {
            if (!node.pipelines()) {
                return false;
            }
        }
        return true;
    }

    /** The round; {@code background} gives back the connections that broke (see RedisNode.giveBack). */
    static <T> NodeRound.Replies<T> run(
            List<RedisNode> nodes, ScriptCall<T> call, long deadlineNanos, Executor background) {
        int n = nodes.size();
        Jedis[] sent = new Jedis[n];
        Object[] values = new Object[n];
        RuntimeException[] errors = new RuntimeException[n];
        boolean[] answered = new boolean[n];
        for (int i = 0; i < n; i++) {
            try {
                sent[i] = nodes.get(i).send(call);
            } catch (RuntimeException e) {
                errors[i] = e;
            }
        }
        for (int i = 0; i < n; i++) {
            RedisNode node = nodes.get(i);
            try {
                if (sent[i] != null) {
                    values[i] = call.parse(node.receive(sent[i], call, deadlineNanos));
                    answered[i] = true;
                }
            } catch (RuntimeException e) {
                errors[i] = e;
            } finally {
                if (sent[i] != null) {
                    node.giveBack(sent[i], background);
                }
            }
            if (errors[i] != null && RedisNode.isTimeout(errors[i])) {
                errors[i] = null; // no answer in time, as a round on the executor reports it
            } else if (errors[i] != null) {
                answered[i] = true;
                if (System.nanoTime() - deadlineNanos < 0 && node.staleConnection(errors[i])) {
                    try {
                        values[i] = call.apply(node);
                        errors[i] = null;
                    } catch (RuntimeException again) {
                        errors[i] = again;
                    }
                }
            }
        }
        return NodeRound.Replies.of(values, errors, answered);
    }
}
