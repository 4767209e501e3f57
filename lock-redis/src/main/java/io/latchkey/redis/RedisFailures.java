package io.latchkey.redis;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;

/*
 * Sorts a Jedis failure into what a user has to do about it, so that the one-line messages of StoreErrors
 * ("authentication failed at ...", "the server at host:port did not answer as Redis ...", "cannot reach ...")
 * are chosen the same way at connect and at every later operation. Reads the cause chain and the suppressed
 * exceptions: Jedis reports a refused connection as "Failed to connect to host:port." with the socket's
 * "Connection refused" suppressed, not as its cause. Stateless.
 */
final class RedisFailures {
    enum Kind {
        /** WRONGPASS, NOAUTH, a password the server has no use for: the credentials are wrong. */
        AUTHENTICATION,
        /** Something answered, but not in RESP: another service on that port. */
        NOT_REDIS,
        /** No connection: refused, unknown host, no route, connect timed out. */
        UNREACHABLE,
        OTHER
    }

    private RedisFailures() {}

    /** The error, its causes and their suppressed exceptions, outermost first (bounded, cycle-safe). */
    static List<Throwable> chain(Throwable error) {
        List<Throwable> out = new ArrayList<>();
        int depth = 0;
        for (Throwable t = error; t != null && depth < 8 && !out.contains(t); t = t.getCause(), depth++) {
            out.add(t);
            for (Throwable s : t.getSuppressed()) {
                if (!out.contains(s)) {
                    out.add(s);
                }
            }
        }
        return out;
    }

    static Kind kind(Throwable error) {
        for (Throwable t : chain(error)) {
            if (t instanceof JedisAccessControlException || isAuthenticationReply(t.getMessage())) {
                return Kind.AUTHENTICATION;
            }
            if (t instanceof JedisConnectionException
                    && String.valueOf(t.getMessage()).startsWith("Unknown reply")) {
                return Kind.NOT_REDIS;
            }
            if (t instanceof ConnectException
                    || t instanceof UnknownHostException
                    || t instanceof NoRouteToHostException
                    || (t instanceof SocketTimeoutException && isConnectTimeout(t.getMessage()))) {
                return Kind.UNREACHABLE;
            }
        }
        return Kind.OTHER;
    }

    /** Whether a fresh connection was closed before any reply: what a TLS-only port does to plain text. */
    static boolean closedWithoutReply(Throwable error) {
        for (Throwable t : chain(error)) {
            String m = String.valueOf(t.getMessage());
            if (t instanceof EOFException || m.startsWith("Unexpected end of stream")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The part of the cause chain that says what went wrong, for a message of the given kind: the server's
     * reply for a failed AUTH, the bytes that were not RESP, "connection refused". Not yet scrubbed.
     */
    static String reason(Throwable error, Kind kind) {
        for (Throwable t : chain(error)) {
            String m = t.getMessage();
            switch (kind) {
                case AUTHENTICATION -> {
                    if (t instanceof JedisAccessControlException || isAuthenticationReply(m)) {
                        return m == null ? "the server refused the credentials" : m;
                    }
                }
                case NOT_REDIS -> {
                    if (m != null && m.startsWith("Unknown reply")) {
                        return "it answered with something that is not the Redis protocol (" + m + ")";
                    }
                }
                case UNREACHABLE -> {
                    if (t instanceof UnknownHostException) {
                        return "unknown host " + m;
                    }
                    if (t instanceof ConnectException
                            || t instanceof NoRouteToHostException
                            || t instanceof SocketTimeoutException) {
                        return m == null ? t.getClass().getSimpleName() : m.toLowerCase(Locale.ROOT);
                    }
                }
                default -> {
                    return null;
                }
            }
        }
        return null;
    }

    private static boolean isAuthenticationReply(String m) {
        if (m == null) {
            return false;
        }
        return m.startsWith("WRONGPASS")
                || m.startsWith("NOAUTH")
                || m.contains("invalid password")
                || m.contains("invalid username-password")
                || m.contains("called without any password configured");
    }

    private static boolean isConnectTimeout(String m) {
        return m != null && m.toLowerCase(Locale.ROOT).contains("connect timed out");
    }
}
