package io.latchkey.redis;

import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.StoreErrors;
import java.util.List;
import redis.clients.jedis.exceptions.JedisConnectionException;

/*
 * The errors of one backend's operations: which one-line StoreErrors message fits a failure (sorted by
 * RedisFailures), the per-node summary of a failed round, and the scrubbing of third-party text, which must
 * never show the URI's secrets. Immutable and thread-safe; one per RedisConnection.
 */
final class RedisErrors {
    private final RedisConnection connection;

    RedisErrors(RedisConnection connection) {
        this.connection = connection;
    }

    /**
     * The error of a failed operation. Wrong credentials and a port that does not speak Redis get the one-line
     * messages of StoreErrors whatever the operation; so does a store none of whose failed nodes could be
     * connected to (built from a URI, whose connect timeout is known). Anything else names the operation.
     */
    BackendUnavailableException unavailable(String op, String name, String detail, NodeRound.Replies<?> replies) {
        List<RedisNode> nodes = connection.nodes();
        for (int i = 0; i < replies.size(); i++) {
            if (replies.error(i) != null) {
                String node = replies.size() == nodes.size() ? nodes.get(i).address() : null;
                return unavailable(op, name, detail, replies.error(i), node);
            }
        }
        return unavailable(op, name, detail, null, null);
    }

    BackendUnavailableException unavailable(String op, String name, String detail, Throwable cause, String failedNode) {
        String target = connection.target();
        boolean single = connection.nodes().size() == 1;
        if (cause != null) {
            RedisFailures.Kind kind = RedisFailures.kind(cause);
            String reason = kind == RedisFailures.Kind.OTHER ? null : RedisFailures.reason(cause, kind);
            if (kind == RedisFailures.Kind.AUTHENTICATION) {
                return StoreErrors.authenticationFailed(target, single ? scrub(reason) : detail, name, cause);
            }
            if (kind == RedisFailures.Kind.NOT_REDIS) {
                return StoreErrors.notThatServer(
                        failedNode != null ? failedNode : target,
                        "Redis",
                        target,
                        single ? scrub(reason) : detail,
                        name,
                        cause);
            }
            if (kind == RedisFailures.Kind.UNREACHABLE && connection.connectTimeout() != null) {
                return StoreErrors.cannotReach(
                        target, connection.connectTimeout(), single ? scrub(reason) : detail, name, cause);
            }
        }
        String description = connection.description();
        String what = name == null ? "Could not " + op + " locks" : "Could not " + op + " lock '" + name + "'";
        return new BackendUnavailableException(what + " on " + description + ": " + detail, name, description, cause);
    }

    /** Third-party text without the URI's secrets (literal or percent-decoded) and with URIs redacted. */
    String scrub(String text) {
        return scrub(text, connection.secrets());
    }

    /** As {@link #scrub(String)}, for the literal {@code secrets} of a URI, before its connection exists. */
    static String scrub(String text, java.util.Set<String> secrets) {
        if (text == null) {
            return null;
        }
        String out = Redaction.redact(text);
        for (String secret : secrets) {
            out = out.replace(secret, Redaction.MASK);
        }
        return out;
    }

    String describe(Throwable error) {
        return scrub(describe(error, connection.tls()));
    }

    /** {@code 1 of 3 nodes failed (2 grants needed): h1:6379 did not answer within 200 ms}. */
    String summary(NodeRound.Replies<?> replies, String need) {
        List<RedisNode> nodes = connection.nodes();
        StringBuilder sb = new StringBuilder();
        int failed = replies.failures();
        sb.append(failed)
                .append(" of ")
                .append(replies.size())
                .append(replies.size() == 1 ? " node" : " nodes")
                .append(" failed (")
                .append(need)
                .append(')');
        String sep = ": ";
        for (int i = 0; i < replies.size(); i++) {
            if (!replies.ok(i)) {
                RuntimeException e = replies.error(i);
                sb.append(sep)
                        .append(nodes.size() == replies.size() ? nodes.get(i).address() : "node")
                        .append(' ')
                        .append(
                                e == null
                                        ? "did not answer within " + NodeRound.millis(connection.timeoutNanos()) + " ms"
                                        : describe(e));
                sep = "; ";
            }
        }
        return sb.toString();
    }

    /**
     * The messages of an error and its causes ("Could not get a resource from the pool" alone says nothing),
     * redacted, with a hint when a TLS connection failed: a server that requires a client certificate may
     * refuse it after the client's side of a TLS 1.3 handshake is done, which the client sees as a broken
     * pipe or a closed connection rather than a handshake error.
     */
    static String describe(Throwable error, boolean tls) {
        StringBuilder sb = new StringBuilder();
        boolean tlsFailure = false;
        boolean connectionFailure = false;
        int depth = 0;
        for (Throwable t = error; t != null && depth < 8; t = t.getCause() == t ? null : t.getCause(), depth++) {
            tlsFailure |= t instanceof javax.net.ssl.SSLException;
            connectionFailure |= t instanceof JedisConnectionException;
            String m = t.getMessage();
            if (m != null && !m.isBlank() && sb.indexOf(m) < 0) {
                sb.append(sb.length() == 0 ? "" : ": ").append(m);
            }
        }
        String text = sb.length() == 0 ? error.getClass().getSimpleName() : sb.toString();
        if (tlsFailure || (tls && connectionFailure && !RedisNode.isTimeout(error))) {
            text += " (TLS: is the server's CA in tlsCa, does its certificate name the host, and does the server "
                    + "require a client certificate (tlsCert, tlsKey)?)";
        }
        return Redaction.redact(text);
    }
}
