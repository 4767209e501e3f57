package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.io.File;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import io.latchkey.spi.StoreErrors;
import javax.net.ssl.SSLException;

/*
 * What an etcd:// URI and its settings say about reaching the cluster: endpoints, credentials, TLS, and the
 * lock settings (EtcdSettings). Parsed once, by hand, because java.net.URI cannot parse an authority that
 * lists several hosts. Immutable; builds the jetcd Client the backend then owns.
 */
final class EtcdConnection {
    /** Settings read here; EtcdSettings' keys plus connection keys. */
    static final Set<String> KEYS = Set.of("namespace", "leaseTtl", "requestTimeout", "waitRecheck", "connectTimeout",
            "keepaliveTime", "keepaliveTimeout", "user", "password", "tls", "tlsCa", "tlsCert", "tlsKey");
    /** gRPC pings an idle connection this often (gRPC's minimum is 10 s): how soon a frozen member is noticed. */
    static final Duration DEFAULT_KEEPALIVE_TIME = Duration.ofSeconds(10);
    static final Duration DEFAULT_KEEPALIVE_TIMEOUT = Duration.ofSeconds(5);

    private final boolean secureScheme;
    private final List<String> hostPorts;
    private final String user;
    private final String password;
    private final boolean tls;
    private final String tlsCa;
    private final String tlsCert;
    private final String tlsKey;
    private final Duration connectTimeout;
    private final Duration keepaliveTime;
    private final Duration keepaliveTimeout;
    private final EtcdSettings settings;

    private EtcdConnection(boolean secureScheme, List<String> hostPorts, String user, String password, boolean tls, String tlsCa, String tlsCert,
                           String tlsKey, Duration connectTimeout, Duration keepaliveTime, Duration keepaliveTimeout,
                           EtcdSettings settings) {
        this.secureScheme = secureScheme;
        this.hostPorts = List.copyOf(hostPorts);
        this.user = user;
        this.password = password;
        this.tls = tls;
        this.tlsCa = tlsCa;
        this.tlsCert = tlsCert;
        this.tlsKey = tlsKey;
        this.connectTimeout = connectTimeout;
        this.keepaliveTime = keepaliveTime;
        this.keepaliveTimeout = keepaliveTimeout;
        this.settings = settings;
    }

    /**
     * Parses {@code etcd://[user[:password]@]host:port[,host:port...][/namespace]}; settings may add or
     * override everything except the hosts.
     */
    static EtcdConnection parse(String uri, Map<String, String> settingsMap) {
        boolean secure = uri != null && uri.regionMatches(true, 0, "etcds://", 0, 8);
        if (uri == null || !(secure || uri.regionMatches(true, 0, "etcd://", 0, 7))) {
            throw new IllegalArgumentException("an etcd URI looks like etcd://host:port[,host:port...][/namespace] (etcds:// for"
                    + " TLS), was '" + io.latchkey.spi.Redaction.redact(uri) + "'");
        }
        String rest = uri.substring(secure ? 8 : 7);
        int query = rest.indexOf('?');
        if (query >= 0 || rest.indexOf('#') >= 0) {
            throw new IllegalArgumentException("an etcd URI takes no query or fragment; pass settings in the map instead: "
                    + io.latchkey.spi.Redaction.redact(uri));
        }
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        String path = slash < 0 ? "" : rest.substring(slash + 1);
        String user = null;
        String password = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String info = authority.substring(0, at);
            authority = authority.substring(at + 1);
            int colon = info.indexOf(':');
            if (colon < 0) {
                // a lone user-info is read as a password by Redaction, so it is never echoed: ask for user:password
                throw new IllegalArgumentException("the user info of an etcd URI must be user:password (percent-encoded),"
                        + " was '" + io.latchkey.spi.Redaction.redact(uri) + "'; or pass settings user and password");
            }
            user = decode(info.substring(0, colon));
            user = user.isEmpty() ? null : user;
            password = decode(info.substring(colon + 1));
        }
        List<String> hosts = new ArrayList<>();
        for (String hp : authority.split(",", -1)) {
            hosts.add(checkHostPort(hp.trim(), uri));
        }

        EtcdSettings.Builder lock = EtcdSettings.builder();
        if (!path.isEmpty()) {
            lock.namespace(decode(path));
        }
        boolean tls = secure;
        String ca = null;
        String cert = null;
        String key = null;
        Duration connectTimeout = StoreErrors.DEFAULT_CONNECT_TIMEOUT;
        Duration keepaliveTime = DEFAULT_KEEPALIVE_TIME;
        Duration keepaliveTimeout = DEFAULT_KEEPALIVE_TIMEOUT;
        for (Map.Entry<String, String> e : settingsMap.entrySet()) {
            String k = e.getKey();
            String v = e.getValue() == null ? "" : e.getValue().trim();
            switch (k) {
                case "namespace" -> {
                    if (!path.isEmpty() && !stripSlashes(decode(path)).equals(stripSlashes(v))) {
                        throw new IllegalArgumentException("the URI path names namespace '" + decode(path)
                                + "' but the setting namespace is '" + v + "'; give it once");
                    }
                    lock.namespace(v);
                }
                case "leaseTtl" -> lock.leaseTtl(EtcdSettings.parseDuration(k, v));
                case "requestTimeout" -> lock.requestTimeout(EtcdSettings.parseDuration(k, v));
                case "waitRecheck" -> lock.waitRecheck(EtcdSettings.parseDuration(k, v));
                case "connectTimeout" -> connectTimeout = positive(k, v);
                case "keepaliveTime" -> keepaliveTime = positive(k, v);
                case "keepaliveTimeout" -> keepaliveTimeout = positive(k, v);
                case "user" -> user = v.isEmpty() ? null : v;
                case "password" -> password = e.getValue();
                case "tls" -> {
                    tls = parseBoolean(k, v);
                    if (secure && !tls) {
                        throw new IllegalArgumentException("an etcds:// URI means TLS; setting tls=false contradicts it"
                                + " (use etcd:// for plain text)");
                    }
                }
                case "tlsCa" -> ca = v;
                case "tlsCert" -> cert = v;
                case "tlsKey" -> key = v;
                default -> throw new IllegalArgumentException("unknown etcd setting '" + k + "'; known settings: "
                        + new TreeSet<>(KEYS));
            }
        }
        if (password != null && user == null) {
            throw new IllegalArgumentException("an etcd password was given without a user; set 'user' too");
        }
        if (user != null && (password == null || password.isEmpty())) {
            // jetcd authenticates only with both (etcd maps a client certificate's common name to a user by itself)
            throw new IllegalArgumentException("an etcd user was given without a password; set 'password'"
                    + " (or the URI's user:password@), or use a client certificate (tlsCert, tlsKey) instead");
        }
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("tlsCert and tlsKey (client certificate and its PKCS#8 key) go together;"
                    + " give both or neither");
        }
        if ((ca != null || cert != null) && !tls) {
            tls = true; // a CA or client certificate only makes sense over TLS
        }
        return new EtcdConnection(secure, hosts, user, password, tls, ca, cert, key, connectTimeout, keepaliveTime,
                keepaliveTimeout, lock.build());
    }

    EtcdSettings settings() {
        return settings;
    }

    /** The time allowed to reach the cluster (setting connectTimeout). */
    Duration connectTimeout() {
        return connectTimeout;
    }

    /** The members as the one-line errors name them: {@code etcd://h1:p1,h2:p2} (no user, no namespace). */
    String target() {
        return (secureScheme ? "etcds://" : "etcd://") + String.join(",", hostPorts);
    }

    /** {@code h1:p1,h2:p2}. */
    String hostPorts() {
        return String.join(",", hostPorts);
    }

    /** The URI with its password masked: {@code etcd://user:***@h1:p1,h2:p2/namespace} (a lone user-info would be hidden whole by Redaction). */
    String description() {
        return (secureScheme ? "etcds://" : "etcd://") + (user == null ? "" : user + ":" + io.latchkey.spi.Redaction.MASK + "@") + String.join(",", hostPorts) + "/" + settings.namespace()
                + (tls ? " (TLS)" : "");
    }

    /** A new jetcd client for these endpoints; the caller owns it. */
    Client newClient() {
        return newClient(new UnaryDeadline(settings.requestTimeout()));
    }

    /** A new jetcd client whose unary calls are bounded by {@code deadline}; the caller owns it. */
    Client newClient(UnaryDeadline deadline) {
        String scheme = tls ? "https://" : "http://";
        ClientBuilder b = Client.builder()
                .endpoints(hostPorts.stream().map(hp -> scheme + hp).toArray(String[]::new))
                .connectTimeout(connectTimeout)
                .keepaliveTime(keepaliveTime)
                .keepaliveTimeout(keepaliveTimeout)
                .interceptor(deadline);
        if (user != null) {
            b.user(ByteSequence.from(user, StandardCharsets.UTF_8));
            b.password(ByteSequence.from(password, StandardCharsets.UTF_8));
        }
        QuietGrpcLogging.apply();
        if (tls) {
            checkTlsFiles();
            try {
                b.sslContext(ssl -> {
                    if (tlsCa != null) {
                        ssl.trustManager(new File(tlsCa));
                    }
                    if (tlsCert != null) {
                        ssl.keyManager(new File(tlsCert), new File(tlsKey));
                    }
                });
            } catch (SSLException | RuntimeException e) {
                String message = String.valueOf(e.getMessage());
                String hint = message.contains("private key")
                        ? "; tlsKey must be an unencrypted PKCS#8 PEM key (BEGIN PRIVATE KEY), which is all jetcd reads:"
                        + " convert one with 'openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem'"
                        : "";
                throw new IllegalArgumentException("could not set up TLS for " + target() + ": " + StoreErrors.oneLine(message)
                        + hint + " (tlsCa=" + tlsCa
                        + ", tlsCert=" + tlsCert + ", tlsKey=" + tlsKey + ")", e);
            }
        }
        return b.build();
    }

    /** Every TLS file given must be a readable file: otherwise an IllegalArgumentException names the setting. */
    void checkTlsFiles() {
        checkReadable("tlsCa", tlsCa);
        checkReadable("tlsCert", tlsCert);
        checkReadable("tlsKey", tlsKey);
    }

    /** A TLS file that cannot be read is named, with the setting, before any connection is tried. */
    private void checkReadable(String setting, String file) {
        if (file == null) {
            return;
        }
        java.nio.file.Path path = java.nio.file.Path.of(file);
        if (!java.nio.file.Files.isRegularFile(path) || !java.nio.file.Files.isReadable(path)) {
            throw new IllegalArgumentException("could not set up TLS for " + target() + ": " + setting + " file '" + file + "' "
                    + (java.nio.file.Files.exists(path) ? "is not a readable file" : "does not exist"));
        }
    }

    private static String checkHostPort(String hp, String uri) {
        int colon = hp.lastIndexOf(':');
        String host = colon <= 0 ? "" : hp.substring(0, colon);
        String port = colon < 0 ? "" : hp.substring(colon + 1);
        boolean ok = !host.isEmpty() && !port.isEmpty() && port.chars().allMatch(Character::isDigit) && port.length() <= 5
                && Integer.parseInt(port) >= 1 && Integer.parseInt(port) <= 65535 && !host.contains("/");
        if (!ok) {
            throw new IllegalArgumentException("every etcd endpoint must be host:port with a port from 1 to 65535, "
                    + "as in etcd://127.0.0.1:2379,127.0.0.1:22379; found '" + hp + "' in '"
                    + io.latchkey.spi.Redaction.redact(uri) + "'");
        }
        return hp;
    }

    private static Duration positive(String key, String v) {
        Duration d = EtcdSettings.parseDuration(key, v);
        if (d.isNegative() || d.isZero() || d.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException(key + " must be positive and at most 10 minutes, was '" + v + "'");
        }
        return d;
    }

    private static boolean parseBoolean(String key, String v) {
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException("setting " + key + " must be true or false, was '" + v + "'");
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static String stripSlashes(String s) {
        String t = s;
        while (t.endsWith("/")) {
            t = t.substring(0, t.length() - 1);
        }
        return t;
    }

    @Override
    public String toString() {
        return "EtcdConnection[" + description() + "]";
    }
}
