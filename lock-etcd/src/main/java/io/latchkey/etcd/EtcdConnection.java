package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.BackendUri;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.Settings;
import io.latchkey.spi.PemTls;
import io.latchkey.spi.StoreErrors;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLException;

/*
 * What an etcd:// URI and its settings say about reaching the cluster: endpoints, credentials, TLS, and the
 * lock settings (EtcdSettings). Read once through the SPI's BackendUri and Settings; what is etcd's own is
 * checked here (every endpoint needs a port, credentials need user and password, etcds:// means TLS).
 * Immutable; builds the jetcd Client the backend then owns.
 */
final class EtcdConnection {
    /** Settings read here; EtcdSettings' keys plus connection keys. */
    static final Set<String> KEYS = Set.of(
            "namespace",
            "leaseTtl",
            "requestTimeout",
            "waitRecheck",
            "connectTimeout",
            "keepaliveTime",
            "keepaliveTimeout",
            "user",
            "password",
            "tls",
            "tlsCa",
            "tlsCert",
            "tlsKey");
    /** gRPC pings an idle connection this often (gRPC's minimum is 10 s): how soon a frozen member is noticed. */
    static final Duration DEFAULT_KEEPALIVE_TIME = Duration.ofSeconds(10);

    static final Duration DEFAULT_KEEPALIVE_TIMEOUT = Duration.ofSeconds(5);
    /** What messages call this backend. */
    static final String BACKEND = "etcd";
    /** Passed to {@link BackendUri} as the default port, so that an endpoint written without one is refused. */
    private static final int NO_PORT = -1;

    private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
    private static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

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

    private EtcdConnection(
            boolean secureScheme,
            List<String> hostPorts,
            String user,
            String password,
            boolean tls,
            String tlsCa,
            String tlsCert,
            String tlsKey,
            Duration connectTimeout,
            Duration keepaliveTime,
            Duration keepaliveTimeout,
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
     * Parses {@code etcd://[user[:password]@]host:port[,host:port...][/namespace]} with the SPI's {@link BackendUri}
     * and {@link Settings}; settings may add everything except the hosts (a value given twice is an error).
     */
    static EtcdConnection parse(String uri, Map<String, String> settingsMap) {
        boolean secure = uri != null && uri.regionMatches(true, 0, "etcds://", 0, 8);
        if (uri == null || !(secure || uri.regionMatches(true, 0, "etcd://", 0, 7))) {
            throw new IllegalArgumentException(
                    "an etcd URI looks like etcd://host:port[,host:port...][/namespace] (etcds:// for" + " TLS), was '"
                            + Redaction.redact(uri) + "'");
        }
        String rest = uri.substring(secure ? 8 : 7);
        if (rest.indexOf('?') >= 0 || rest.indexOf('#') >= 0) {
            throw new IllegalArgumentException(
                    "an etcd URI takes no query or fragment; pass settings in the map instead: "
                            + Redaction.redact(uri));
        }
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        int at = authority.lastIndexOf('@');
        if (at >= 0 && authority.substring(0, at).indexOf(':') < 0) {
            // BackendUri reads a lone user-info as a password (so Redaction never echoes it); etcd needs user:password
            throw new IllegalArgumentException("the user info of an etcd URI must be user:password (percent-encoded),"
                    + " was '" + Redaction.redact(uri) + "'; or pass settings user and password");
        }
        BackendUri u = BackendUri.parse(BackendUri.toUri(uri), BACKEND, settingsMap, NO_PORT);
        List<String> hosts = new ArrayList<>();
        for (BackendUri.HostPort h : u.hosts()) {
            if (h.port() == NO_PORT || h.host().contains("/")) {
                throw new IllegalArgumentException("every etcd endpoint must be host:port with a port from 1 to 65535, "
                        + "as in etcd://127.0.0.1:2379,127.0.0.1:22379; found '" + h.host() + "' in '" + u + "'");
            }
            hosts.add(h.toString());
        }
        Settings s = u.settings().rejectUnknown(KEYS);
        EtcdSettings.Builder lock = EtcdSettings.builder();
        String path = u.path();
        if (!path.isEmpty()) {
            lock.namespace(path);
        }
        if (s.has("namespace")) {
            String v = s.text("namespace", "");
            if (!path.isEmpty() && !stripSlashes(path).equals(stripSlashes(v))) {
                throw new IllegalArgumentException("the URI path names namespace '" + path
                        + "' but the setting namespace is '" + v + "'; give it once");
            }
            lock.namespace(v);
        }
        s.duration("leaseTtl", Duration.ofMillis(1), EtcdSettings.MAX_TTL).ifPresent(lock::leaseTtl);
        s.duration("requestTimeout", MIN_TIMEOUT, MAX_TIMEOUT).ifPresent(lock::requestTimeout);
        s.duration("waitRecheck", MIN_TIMEOUT, MAX_TIMEOUT).ifPresent(lock::waitRecheck);
        Duration connectTimeout =
                s.duration(StoreErrors.CONNECT_TIMEOUT, StoreErrors.DEFAULT_CONNECT_TIMEOUT, MIN_TIMEOUT, MAX_TIMEOUT);
        Duration keepaliveTime = s.duration("keepaliveTime", DEFAULT_KEEPALIVE_TIME, MIN_TIMEOUT, MAX_TIMEOUT);
        Duration keepaliveTimeout = s.duration("keepaliveTimeout", DEFAULT_KEEPALIVE_TIMEOUT, MIN_TIMEOUT, MAX_TIMEOUT);
        boolean tls = s.flag("tls", secure);
        if (secure && !tls) {
            throw new IllegalArgumentException(
                    "an etcds:// URI means TLS; setting tls=false contradicts it" + " (use etcd:// for plain text)");
        }
        String ca = s.text("tlsCa").orElse(null);
        String cert = s.text("tlsCert").orElse(null);
        String key = s.text("tlsKey").orElse(null);
        String user = u.user().orElse(null);
        String password = u.password().orElse(null);
        if (password != null && user == null) {
            throw new IllegalArgumentException("an etcd password was given without a user; set 'user' too");
        }
        if (user != null && password == null) {
            // jetcd authenticates only with both (etcd maps a client certificate's common name to a user by itself)
            throw new IllegalArgumentException("an etcd user was given without a password; set 'password'"
                    + " (or the URI's user:password@), or use a client certificate (tlsCert, tlsKey) instead");
        }
        PemTls.checkSettings(
                s.has("tls") ? tls : null,
                ca == null ? null : Path.of(ca),
                cert == null ? null : Path.of(cert),
                key == null ? null : Path.of(key));
        if ((ca != null || cert != null) && !tls) {
            tls = true; // a CA or client certificate only makes sense over TLS
        }
        return new EtcdConnection(
                secure,
                hosts,
                user,
                password,
                tls,
                ca,
                cert,
                key,
                connectTimeout,
                keepaliveTime,
                keepaliveTimeout,
                lock.build());
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
        return (secureScheme ? "etcds://" : "etcd://") + (user == null ? "" : user + ":" + Redaction.MASK + "@")
                + String.join(",", hostPorts) + "/" + settings.namespace() + (tls ? " (TLS)" : "");
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
                throw new IllegalArgumentException(
                        "could not set up TLS for " + target() + ": " + StoreErrors.oneLine(message)
                                + hint + " (tlsCa=" + tlsCa
                                + ", tlsCert=" + tlsCert + ", tlsKey=" + tlsKey + ")",
                        e);
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
            throw new IllegalArgumentException("could not set up TLS for " + target() + ": " + setting + " file '"
                    + file + "' " + (java.nio.file.Files.exists(path) ? "is not a readable file" : "does not exist"));
        }
    }

    /*
     * Why the first lease could not be granted within connectTimeout, as one line: a refused user or password is
     * "authentication failed at etcd://host:port: ...", a TLS problem or silence is "cannot reach ... within 5s: ..."
     * with the TLS problem in words (EtcdCalls.explain). The password is in none of these texts.
     */
    RuntimeException connectFailure(RuntimeException e) {
        if (!(e instanceof BackendUnavailableException)) {
            return e;
        }
        String explained = EtcdCalls.explain(e);
        if (explained != null && explained.startsWith("etcd refused the user name or password")) {
            return StoreErrors.authenticationFailed(target(), explained, null, e);
        }
        if (explained != null && explained.startsWith("etcd denied this user access")) {
            return StoreErrors.authenticationFailed(target(), explained, null, e);
        }
        if (explained != null) {
            return StoreErrors.cannotReach(target(), connectTimeout, explained, null, e);
        }
        String all = everything(e).toLowerCase(java.util.Locale.ROOT);
        String reason = all.contains("connection refused")
                ? "connection refused"
                : all.contains("unknownhost") || all.contains("unresolved")
                        ? "unknown host"
                        : all.contains("did not answer")
                                        || all.contains("deadline_exceeded")
                                        || all.contains("deadline exceeded")
                                ? "the server accepted the TCP connection but did not answer etcd's gRPC protocol"
                                : e.getMessage();
        return StoreErrors.cannotReach(target(), connectTimeout, reason, null, e);
    }

    private static String everything(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null && sb.length() < 100_000; c = c.getCause()) {
            sb.append(c).append('\n');
        }
        return sb.toString();
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
