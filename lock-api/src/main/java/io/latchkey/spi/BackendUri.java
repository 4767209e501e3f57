package io.latchkey.spi;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A backend URI taken apart once, for every backend and the CLI:
 *
 * <pre>
 *   scheme://[user[:password]@]host[:port][,host[:port]...][/path][?key=value&amp;...]
 * </pre>
 *
 * <ul>
 *   <li>Several hosts are separated by commas (Redlock, ZooKeeper and etcd ensembles); an IPv6 address is
 *       written in brackets; a host without a port gets the default port the backend passes in.</li>
 *   <li>A user-info without a colon is a password (the Redis convention: {@code redis://s3cret@host}).
 *       Backends that need a user name reject that themselves. The settings {@code user} and {@code password}
 *       are credentials too; giving one both in the user-info and as a setting is an error.</li>
 *   <li>Query parameters and the settings map are merged into one {@link Settings}; a key given in both is an
 *       error. The credentials are taken out of the settings, so that no settings object ever holds them.</li>
 *   <li>{@link #toString()} is the URI with every secret masked ({@link Redaction}); {@link #target()} is the
 *       store as errors name it: scheme and hosts (and path), no user-info, no query.</li>
 * </ul>
 * Immutable and thread-safe. Every error is an {@link IllegalArgumentException} that quotes the redacted URI.
 */
public final class BackendUri {
    /** A host and a port of a backend URI. */
    public record HostPort(String host, int port) {
        /** {@code host:port}, with an IPv6 host in brackets. */
        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    private final String scheme;
    private final List<HostPort> hosts;
    private final @Nullable String user;
    private final @Nullable String password;
    private final String path;
    private final Settings settings;
    private final String redacted;

    private BackendUri(
            String scheme,
            List<HostPort> hosts,
            @Nullable String user,
            @Nullable String password,
            String path,
            Settings settings,
            String redacted) {
        this.scheme = scheme;
        this.hosts = hosts;
        this.user = user;
        this.password = password;
        this.path = path;
        this.settings = settings;
        this.redacted = redacted;
    }

    /**
     * Takes a URI text apart; {@code mem:} alone (nothing after the colon) reads as {@code mem:/}.
     *
     *
     * @param text the URI as written
     * @return the parsed URI
     * @throws IllegalArgumentException if it is blank or malformed, quoting it with its secrets masked
     */
    public static URI toUri(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(
                    "backend URI must not be null or blank; for example mem: or redis://localhost:6379");
        }
        String t = text.strip();
        try {
            return new URI(t.endsWith(":") && t.indexOf(':') == t.length() - 1 ? t + "/" : t);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("backend URI '" + maskMalformed(t) + "' is malformed: "
                    + Redaction.redact(e.getReason()) + " at index " + e.getIndex()
                    + "; percent-encode spaces and special characters (%20)");
        }
    }

    /**
     * Parses a hierarchical backend URI.
     *
     *
     * @param uri         the URI
     * @param backend     what messages call the backend ({@code Redis}, {@code etcd}); also the settings' name
     * @param settings    settings given besides the URI; null means none
     * @param defaultPort the port of a host written without one
     * @return the parts of the URI
     * @throws IllegalArgumentException for a missing host, a bad port, settings given twice, or credentials
     *                                  given twice
     */
    public static BackendUri parse(URI uri, String backend, Map<String, String> settings, int defaultPort) {
        if (uri == null) {
            throw new IllegalArgumentException(backend + " URI must not be null");
        }
        String redacted = Redaction.redact(uri.toString());
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String authority = uri.getRawAuthority();
        if (authority == null || authority.isEmpty()) {
            throw new IllegalArgumentException(backend + " URI '" + redacted + "' has no host; expected for example "
                    + scheme + "://127.0.0.1:" + defaultPort);
        }
        @Nullable String user = null;
        @Nullable String password = null;
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
        }
        List<HostPort> hosts = new ArrayList<>();
        for (String part : authority.split(",", -1)) {
            hosts.add(hostPort(part.strip(), redacted, defaultPort));
        }
        LinkedHashMap<String, String> merged = new LinkedHashMap<>(settings == null ? Map.of() : settings);
        String query = uri.getRawQuery();
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                if (merged.containsKey(key)) {
                    throw new IllegalArgumentException("setting " + key + " of '" + redacted
                            + "' is given both in the URI and in the settings map; give it once");
                }
                merged.put(key, value);
            }
        }
        user = credential("user", user, merged.remove("user"), redacted);
        password = credential("password", password, merged.remove("password"), redacted);
        String rawPath = uri.getRawPath();
        String path = rawPath == null || rawPath.isEmpty() ? "" : decode(rawPath.substring(1));
        return new BackendUri(scheme, List.copyOf(hosts), user, password, path, Settings.of(backend, merged), redacted);
    }

    /**
     * The scheme, lower case: {@code redis}, {@code redlock}, {@code etcds}.
     *
     * @return the scheme
     */
    public String scheme() {
        return scheme;
    }

    /**
     * The hosts, in the order written; at least one.
     *
     * @return the hosts
     */
    public List<HostPort> hosts() {
        return hosts;
    }

    /**
     * The user, from the user-info or the setting {@code user}.
     *
     * @return the user, or empty
     */
    public Optional<String> user() {
        return Optional.ofNullable(user);
    }

    /**
     * The password, from the user-info or the setting {@code password}. Never print it.
     *
     * @return the password, or empty
     */
    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    /**
     * The path after the hosts, percent-decoded, without its leading slash; empty if none.
     *
     * @return the path, or an empty string
     */
    public String path() {
        return path;
    }

    /**
     * The query parameters and the settings map, merged, without the credentials.
     *
     * @return the settings
     */
    public Settings settings() {
        return settings;
    }

    /**
     * The store as one-line errors name it: {@code redis://h:6379}, {@code redlock://h1:1,h2:2,h3:3/2}: scheme,
     * hosts and path; no user-info and no query, so nothing secret, whatever form the credentials came in.
     *
     * @return the target, safe to show
     */
    public String target() {
        StringBuilder sb = new StringBuilder(scheme).append("://");
        for (int i = 0; i < hosts.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(hosts.get(i));
        }
        return path.isEmpty() ? sb.toString() : sb.append('/').append(path).toString();
    }

    /** The URI as given, with every password masked. */
    @Override
    public String toString() {
        return redacted;
    }

    /*
     * Redaction stops an authority at white space (so that it can scrub free text); a malformed URI may hold a
     * raw space in its password, so here everything before the authority's last '@' is hidden as well.
     */
    private static String maskMalformed(String text) {
        String s = Redaction.redact(text);
        int start = s.indexOf("//");
        if (start < 0) {
            return s;
        }
        int slash = s.indexOf('/', start + 2);
        int end = slash < 0 ? s.length() : slash;
        int at = s.lastIndexOf('@', end - 1);
        return at <= start ? s : s.substring(0, start + 2) + Redaction.MASK + s.substring(at);
    }

    private static @Nullable String credential(
            String what, @Nullable String fromUserInfo, @Nullable String fromSettings, String redacted) {
        String a = fromUserInfo == null || fromUserInfo.isEmpty() ? null : fromUserInfo;
        String b = fromSettings == null || fromSettings.isEmpty() ? null : fromSettings;
        if (a != null && b != null) {
            throw new IllegalArgumentException("the " + what + " is given both in the user-info of '" + redacted
                    + "' and as the setting " + what + "; give it once");
        }
        return a != null ? a : b;
    }

    private static HostPort hostPort(String text, String redacted, int defaultPort) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("empty host in '" + redacted
                    + "'; separate hosts with commas, for example h1:" + defaultPort + ",h2:" + defaultPort);
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
                    throw new IllegalArgumentException(
                            "expected ':' after ']' in '" + text + "' in '" + redacted + "'");
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
        if (port == null) {
            return new HostPort(host, defaultPort);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "port '" + port + "' of host " + host + " in '" + redacted
                            + "' is not a number between 1 and 65535",
                    e);
        }
        if (p < 1 || p > 65535) {
            throw new IllegalArgumentException(
                    "port " + p + " of host " + host + " in '" + redacted + "' is not between 1 and 65535");
        }
        return new HostPort(host, p);
    }

    /** Percent-decoding that keeps a literal {@code +} (URIs are not form data). */
    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
