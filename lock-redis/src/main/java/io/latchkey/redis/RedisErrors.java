package io.latchkey.redis;

import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.StoreErrors;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.exceptions.JedisConnectionException;

/*
 * The errors of one backend's operations: which one-line StoreErrors message fits a failure (sorted by
 * RedisFailures), the per-node summary of a failed round, and the scrubbing of third-party text, which must
 * never show the URI's secrets. Immutable and thread-safe; one per RedisConnection.
 *
 * A missing ACL privilege (Redis's NOPERM, or a script call the ACL refused) is named with the ACL rule that grants
 * it ("the ACL user needs +incr"), never reported as wrong credentials: Jedis throws the same exception type for
 * NOPERM as for WRONGPASS. Redis 7.0 names neither the command nor the key a script was refused, only the script's
 * SHA and line, so the command is read from that line of the script (SCRIPTS).
 */
final class RedisErrors {
    /** Every script the backend runs; RedisLeastPrivilegeTest checks that none is missing. */
    static final List<LuaScript> SCRIPTS = List.of(
            RedisScripts.ACQUIRE,
            RedisScripts.RAISE_FENCE,
            RedisScripts.RENEW,
            RedisScripts.RENEW_MANY,
            RedisScripts.RELEASE,
            RedisScripts.FORCE_RELEASE,
            RedisScripts.INSPECT,
            RedisScripts.SEM_ACQUIRE,
            RedisScripts.SEM_RENEW,
            RedisScripts.SEM_RELEASE,
            RedisScripts.SEM_AVAILABLE,
            ReadWriteScripts.ACQUIRE,
            ReadWriteScripts.RENEW,
            ReadWriteScripts.RELEASE,
            ReadWriteScripts.RAISE_FENCE,
            ReadWriteScripts.DOWNGRADE,
            ReadWriteScripts.WITHDRAW);

    /** Where to read the whole grant. */
    private static final String SEE = "see \"Least privilege\" in the lock-redis README";
    /** Starts every hint, so that a text gets at most one. */
    private static final String HINT = " (missing privilege: ";

    /** A refused command: "NOPERM this user has no permissions to run the 'blpop' command" (7.0), "User u has ..." (7.2). */
    private static final Pattern DENIED_COMMAND = Pattern.compile("no permissions to run the '([^']+)' command");
    /** A refused key, named by Redis 7.2 and later inside scripts only. */
    private static final Pattern DENIED_KEY = Pattern.compile("permissions to access the '([^']*)' key");
    /** Redis 7.0's refused script call: "... can't run this command or subcommand script: <sha>, on @user_script:2." */
    private static final Pattern DENIED_SCRIPT_CALL =
            Pattern.compile("can't run this command or subcommand script: ([0-9a-f]{40}), on @user_script:(\\d+)");

    private static final Pattern CALL = Pattern.compile("redis\\.call\\('([A-Za-z]+)'");

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
        if (cause != null && missingPrivilege(cause) == null) {
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

    /**
     * Third-party text without the URI's secrets (literal or percent-decoded) and with URIs redacted; a refusal by
     * the server's ACL (NOPERM) gets the privilege it lacks appended, as in {@link #describe(Throwable, boolean)}.
     */
    String scrub(String text) {
        String out = scrub(text, connection.secrets());
        return out != null && out.startsWith("NOPERM") ? withPrivilege(out, missingPrivilege(out)) : out;
    }

    /**
     * What a failure's ACL refusal lacks, as the ACL rule that grants it ("the ACL user needs +incr, which the acquire
     * script calls"), or null when the failure is no ACL refusal.
     */
    static String missingPrivilege(Throwable error) {
        for (Throwable t : RedisFailures.chain(error)) {
            String privilege = missingPrivilege(t.getMessage());
            if (privilege != null) {
                return privilege;
            }
        }
        return null;
    }

    /** As {@link #missingPrivilege(Throwable)}, for one reply of the server. */
    static String missingPrivilege(String reply) {
        if (reply == null) {
            return null;
        }
        Matcher command = DENIED_COMMAND.matcher(reply);
        if (command.find()) {
            return "the ACL user needs +" + command.group(1).toLowerCase(java.util.Locale.ROOT);
        }
        Matcher key = DENIED_KEY.matcher(reply);
        if (key.find()) {
            return keyPatternNeeded("'" + key.group(1) + "'");
        }
        if (reply.contains("permissions to access one of the keys")
                || reply.contains("permissions to access a key")
                || reply.contains("can't access at least one of the keys")) {
            return keyPatternNeeded("a key");
        }
        Matcher call = DENIED_SCRIPT_CALL.matcher(reply);
        if (call.find()) {
            return scriptCall(call.group(1), Integer.parseInt(call.group(2)));
        }
        if (reply.startsWith("NOPERM") || reply.contains("ACL failure in script")) {
            return "the ACL user lacks a permission the backend needs";
        }
        return null;
    }

    private static String keyPatternNeeded(String key) {
        return "the ACL user may not use " + key + " of this backend: its key pattern must be ~<keyPrefix>*, which is"
                + " ~latchkey:* unless keyPrefix is set";
    }

    /** The commands line {@code line} of the script {@code sha} calls, as the rules that grant them. */
    private static String scriptCall(String sha, int line) {
        for (LuaScript script : SCRIPTS) {
            if (new String(script.sha, StandardCharsets.US_ASCII).equals(sha)) {
                String[] lines = new String(script.body, StandardCharsets.UTF_8).split("\n", -1);
                List<String> rules = new ArrayList<>();
                if (line >= 1 && line <= lines.length) {
                    Matcher m = CALL.matcher(lines[line - 1]);
                    while (m.find()) {
                        String rule = "+" + m.group(1).toLowerCase(java.util.Locale.ROOT);
                        if (!rules.contains(rule)) {
                            rules.add(rule);
                        }
                    }
                }
                if (rules.isEmpty()) {
                    return "the ACL user lacks a command the " + script.name + " script calls at line " + line;
                }
                return "the ACL user needs " + String.join(" and ", rules) + ", which the " + script.name
                        + " script calls, and Redis checks a script's calls too";
            }
        }
        return "the ACL user lacks a command a Lua script calls";
    }

    /** {@code text} with the hint for {@code privilege} (once), or unchanged when that is null. */
    static String withPrivilege(String text, String privilege) {
        if (privilege == null || text.contains(HINT)) {
            return text;
        }
        return text + HINT + privilege + "; " + SEE + ")";
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
        text = withPrivilege(text, missingPrivilege(error));
        if (tlsFailure || (tls && connectionFailure && !RedisNode.isTimeout(error))) {
            text += " (TLS: is the server's CA in tlsCa, does its certificate name the host, and does the server "
                    + "require a client certificate (tlsCert, tlsKey)?)";
        }
        return Redaction.redact(text);
    }
}
