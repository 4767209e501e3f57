package io.latchkey.redis;

import io.latchkey.spi.BackendUri;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.Settings;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a URI says, with the Redis conventions on top of BackendUri, and the literal secrets of the URI and
 * the settings (also a password given as a setting, decoded), which no message may show. For Sentinel, the
 * master's name (the path's first segment) and the Sentinels' own credentials (settings {@code sentinelUser},
 * {@code sentinelPassword}), taken out of the settings here so that RedisSettings never holds a secret.
 */
record RedisTarget(
        BackendUri uri,
        Topology topology,
        int database,
        boolean tls,
        Set<String> secrets,
        Settings settings,
        String master,
        String sentinelUser,
        String sentinelPassword) {
    /** How the servers of a URI are arranged. */
    enum Topology {
        /** {@code redis://}, {@code rediss://}: one server. */
        SINGLE,
        /** {@code redlock://}: N independent servers, a quorum of them per grant. */
        REDLOCK,
        /** {@code redis-sentinel://}: the master a group of Sentinels names, followed across fail-overs. */
        SENTINEL,
        /** {@code redis-cluster://}: a Redis Cluster, each name's keys in one hash slot. */
        CLUSTER
    }

    static RedisTarget parse(URI uri, Map<String, String> settings) {
        String given = uri == null || uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        BackendUri b = BackendUri.parse(uri, "Redis", settings, given.equals("redis-sentinel") ? 26379 : 6379);
        String scheme = b.scheme();
        Topology topology =
                switch (scheme) {
                    case "redis", "rediss" -> Topology.SINGLE;
                    case "redlock" -> Topology.REDLOCK;
                    case "redis-sentinel" -> Topology.SENTINEL;
                    case "redis-cluster" -> Topology.CLUSTER;
                    default -> throw new IllegalArgumentException("unsupported scheme in '" + b
                            + "'; expected redis://, rediss://, redlock://, redis-sentinel:// or redis-cluster://");
                };
        if (topology == Topology.SINGLE && b.hosts().size() != 1) {
            throw new IllegalArgumentException("a " + scheme + ":// URI names one server, '" + b + "' names "
                    + b.hosts().size() + "; use redlock://h1:p1,h2:p2,h3:p3 for a Redlock quorum, "
                    + "redis-sentinel://s1,s2,s3/master or redis-cluster://n1,n2,n3 for those topologies");
        }
        Set<String> secrets = new LinkedHashSet<>(Redaction.secretsOf(uri.toString(), settings));
        b.password().filter(pw -> pw.length() >= 3).ifPresent(secrets::add);
        Settings rest = b.settings();
        String master = null;
        String sentinelUser = null;
        String sentinelPassword = null;
        int database;
        if (topology == Topology.SENTINEL) {
            String[] path = b.path().split("/", -1);
            master = path[0];
            if (master.isBlank() || path.length > 2) {
                throw new IllegalArgumentException("'" + b + "' must name the master the Sentinels monitor, "
                        + "and optionally a database: redis-sentinel://s1:26379,s2:26379,s3:26379/mymaster[/0]");
            }
            database = path.length == 2 ? database(b, path[1]) : 0;
            sentinelUser = rest.text("sentinelUser").orElse(null);
            sentinelPassword = rest.text("sentinelPassword").orElse(null);
            rest = rest.without("sentinelUser", "sentinelPassword");
        } else if (topology == Topology.CLUSTER) {
            if (!b.path().isEmpty()) {
                throw new IllegalArgumentException("'" + b + "' has a path, but a Redis Cluster has only "
                        + "database 0; write redis-cluster://n1:p1,n2:p2,n3:p3");
            }
            database = 0;
        } else {
            database = b.path().isEmpty() ? 0 : database(b, b.path());
        }
        if (topology != Topology.SENTINEL && (rest.has("sentinelUser") || rest.has("sentinelPassword"))) {
            throw new IllegalArgumentException(
                    "sentinelUser and sentinelPassword apply to redis-sentinel:// only, not to '" + b + "'");
        }
        return new RedisTarget(
                b,
                topology,
                database,
                scheme.equals("rediss"),
                Set.copyOf(secrets),
                rest,
                master,
                sentinelUser,
                sentinelPassword);
    }

    /**
     * As {@link BackendUri#target()}, with the database only when it is not 0 (as messages always had it);
     * a Sentinel target keeps the master's name.
     */
    String target() {
        if (database != 0 || topology == Topology.SENTINEL) {
            return uri.target();
        }
        StringBuilder sb = new StringBuilder(uri.scheme()).append("://");
        uri.hosts()
                .forEach(h -> sb.append(sb.charAt(sb.length() - 1) == '/' ? "" : ",")
                        .append(h));
        return sb.toString();
    }

    /** The redacted URI: a record's own toString would show the Sentinels' password. */
    @Override
    public String toString() {
        return uri.toString();
    }

    private static int database(BackendUri b, String text) {
        try {
            int n = Integer.parseInt(text);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new IllegalArgumentException(
                "the database of '" + b + "' must be a database number such as /0, was '" + text + "'");
    }
}
