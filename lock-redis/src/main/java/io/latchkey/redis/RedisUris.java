package io.latchkey.redis;

import io.latchkey.spi.Redaction;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/*
 * Parses the URIs this module serves, never quoting a password in an error:
 *
 *   redis://[user:password@]host[:port][/db][?setting=value&...]
 *   rediss://...                                   (TLS)
 *   redlock://[user:password@]h1:p1,h2:p2,h3:p3[/db][?setting=value&...]
 *
 * A user-info without a colon is a password (the Redis convention: redis-cli, Lettuce and redis-py read
 * `redis://s3cret@host` as the password of the default user). The credentials may also come as the settings
 * `user` and `password` (query string or settings map, as on the JDBC and etcd schemes), but not both there and
 * in the user-info. Settings may come from the query string or the settings map, not both for the same key.
 * Stateless.
 */
final class RedisUris {
    static final int DEFAULT_PORT = 6379;

    private RedisUris() {
    }

    record HostPort(String host, int port) {
        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /** What a URI says. The password is kept apart and never printed. */
    record Parsed(String scheme, List<HostPort> nodes, String user, String password, int database, boolean tls,
                  Map<String, String> settings, String redacted) {
        @Override
        public String toString() {
            return redacted;
        }

        /**
         * The store as the one-line errors name it: {@code redis://host:6379}, {@code redlock://h1:1,h2:2,h3:3},
         * with the database when it is not 0; no user-info and no query string, so nothing secret, whatever the
         * form the credentials came in.
         */
        String target() {
            StringBuilder sb = new StringBuilder(scheme).append("://");
            for (int i = 0; i < nodes.size(); i++) {
                sb.append(i == 0 ? "" : ",").append(nodes.get(i));
            }
            return database == 0 ? sb.toString() : sb.append('/').append(database).toString();
        }
    }

    static Parsed parse(URI uri, Map<String, String> settings) {
        if (uri == null) {
            throw new IllegalArgumentException("Redis URI must not be null; for example redis://127.0.0.1:6379");
        }
        String redacted = Redaction.redact(uri.toString());
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("redis") && !scheme.equals("rediss") && !scheme.equals("redlock")) {
            throw new IllegalArgumentException("unsupported scheme in '" + redacted + "'; expected redis://, rediss:// or redlock://");
        }
        String authority = uri.getRawAuthority();
        if (authority == null || authority.isEmpty()) {
            throw new IllegalArgumentException("Redis URI '" + redacted + "' has no host; expected for example "
                    + (scheme.equals("redlock") ? "redlock://h1:6379,h2:6379,h3:6379" : scheme + "://127.0.0.1:6379"));
        }
        String user = null;
        String password = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String info = authority.substring(0, at);
            authority = authority.substring(at + 1);
            int colon = info.indexOf(':');
            if (colon < 0) {
                password = decode(info);
            } else {
                user = colon == 0 ? null : decode(info.substring(0, colon));
                password = decode(info.substring(colon + 1));
            }
            if (password != null && password.isEmpty()) {
                password = null;
            }
        }
        List<HostPort> nodes = new ArrayList<>();
        for (String part : authority.split(",", -1)) {
            nodes.add(hostPort(part.trim(), redacted));
        }
        if (!scheme.equals("redlock") && nodes.size() != 1) {
            throw new IllegalArgumentException("a " + scheme + ":// URI names one server, '" + redacted + "' names "
                    + nodes.size() + "; use redlock://h1:p1,h2:p2,h3:p3 for a Redlock quorum");
        }
        int database = database(uri.getRawPath(), redacted);
        Map<String, String> merged = new HashMap<>(settings == null ? Map.of() : settings);
        String query = uri.getRawQuery();
        if (query != null && !query.isEmpty()) {
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                if (merged.containsKey(key)) {
                    throw new IllegalArgumentException("setting " + key + " is given both in the URI and in the settings map; give it once");
                }
                merged.put(key, value);
            }
        }
        // credentials as settings: taken out here, so that they never reach RedisSettings (and its toString)
        String userSetting = merged.remove("user");
        String passwordSetting = merged.remove("password");
        if (userSetting != null && !userSetting.isEmpty()) {
            if (user != null) {
                throw new IllegalArgumentException("the user is given both in the user-info of '" + redacted
                        + "' and as the setting user; give it once");
            }
            user = userSetting;
        }
        if (passwordSetting != null && !passwordSetting.isEmpty()) {
            if (password != null) {
                throw new IllegalArgumentException("the password is given both in the user-info of '" + redacted
                        + "' and as the setting password; give it once");
            }
            password = passwordSetting;
        }
        boolean tls = scheme.equals("rediss");
        return new Parsed(scheme, List.copyOf(nodes), user, password, database, tls, Map.copyOf(merged), redacted);
    }

    private static HostPort hostPort(String text, String redacted) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("empty host in '" + redacted + "'; separate hosts with commas, e.g. h1:6379,h2:6379");
        }
        String host;
        String port = null;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("unclosed IPv6 address '" + text + "' in '" + redacted + "'");
            }
            host = text.substring(1, close);
            if (close + 1 < text.length()) {
                if (text.charAt(close + 1) != ':') {
                    throw new IllegalArgumentException("expected ':' after ']' in '" + text + "' in '" + redacted + "'");
                }
                port = text.substring(close + 2);
            }
        } else {
            int colon = text.lastIndexOf(':');
            host = colon < 0 ? text : text.substring(0, colon);
            port = colon < 0 ? null : text.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("empty host in '" + redacted + "'");
        }
        int p = DEFAULT_PORT;
        if (port != null) {
            try {
                p = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("port '" + port + "' of host " + host + " in '" + redacted
                        + "' is not a number between 1 and 65535", e);
            }
            if (p < 1 || p > 65535) {
                throw new IllegalArgumentException("port " + p + " of host " + host + " in '" + redacted
                        + "' is not between 1 and 65535");
            }
        }
        return new HostPort(host, p);
    }

    private static int database(String path, String redacted) {
        if (path == null || path.isEmpty() || path.equals("/")) {
            return 0;
        }
        String db = path.substring(1);
        try {
            int n = Integer.parseInt(db);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the path of '" + redacted + "' must be a database number such as /0, was '"
                    + path + "'", e);
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
