package io.latchkey.zookeeper;

import io.latchkey.spi.Namespaces;
import io.latchkey.spi.Settings;
import io.latchkey.spi.StoreErrors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.zookeeper.common.PathUtils;

/**
 * Tuning of a ZooKeeper backend. Immutable; build with {@link #builder()} or read from the settings map of
 * {@code Latchkey.connect(uri, settings)} (or the URI's query string) with {@link #fromMap(Map)}.
 *
 * <ul>
 *   <li>{@code sessionTimeout} (default 30 s): the ZooKeeper session timeout the client asks for. A holder that
 *       dies frees its locks within it; the server may negotiate it into its {@code minSessionTimeout}..
 *       {@code maxSessionTimeout} range, and the backend uses the negotiated value. Keep lock leases at or
 *       below it (see the module README).</li>
 *   <li>{@code connectTimeout} (default 5 s, {@link io.latchkey.spi.StoreErrors#CONNECT_TIMEOUT}, the name every
 *       scheme accepts): how long connecting may take before it fails with {@code cannot reach
 *       zookeeper://host:port within 5s: <reason>}, and how long one operation waits for a connection. At most the
 *       session timeout. {@code connectionTimeout}, its earlier name, is accepted as an alias (not both).</li>
 *   <li>{@code basePath} (default {@code /latchkey}): the node under which every lock's parent lives. An
 *       absolute ZooKeeper path, not the root and not under {@code /zookeeper}.</li>
 *   <li>{@code namespace} (default none): the locks live under {@code <basePath>/ns/<namespace>}, apart from every
 *       other namespace's (the same setting on every scheme).</li>
 *   <li>{@code acl} (default {@code auto}): the ACL of the nodes the backend's own client creates: {@code creator}
 *       when the client authenticates ({@code user:password@}), else {@code open}; see {@link Builder#acl}.</li>
 *   <li>{@code tls} (default false) and {@code tlsCa} (a PEM file of CAs to trust; implies {@code tls}): connect to
 *       the servers' secure client port, verifying the server's certificate and host name.</li>
 * </ul>
 *
 * Durations use the one grammar of {@link io.latchkey.spi.DurationText} ({@code 250ms}, {@code 2s}, {@code 1.5s},
 * {@code 1m30s}, {@code 1h}; ISO-8601 {@code PT10S} too); a bare number is rejected, its unit would be a guess.
 */
public final class ZooKeeperSettings {
    /** The keys {@link #fromMap(Map)} accepts. */
    public static final Set<String> KEYS =
            Set.of("sessionTimeout", StoreErrors.CONNECT_TIMEOUT, "connectionTimeout", "basePath", "namespace", "acl", "tls", "tlsCa");
    /** The earlier name of {@code connectTimeout}, still accepted. */
    static final String CONNECT_TIMEOUT_ALIAS = "connectionTimeout";
    /** What messages call this backend. */
    static final String BACKEND = "ZooKeeper";

    private static final Duration MIN_TIMEOUT = Duration.ofMillis(100);
    private static final Duration MAX_TIMEOUT = Duration.ofHours(1);

    private final Duration sessionTimeout;
    private final Duration connectionTimeout;
    private final String basePath;
    private final String namespace;
    private final String acl;
    private final boolean tls;
    private final Path tlsCa;

    private ZooKeeperSettings(Builder b) {
        this.sessionTimeout = b.sessionTimeout;
        this.connectionTimeout = b.connectionTimeout;
        this.basePath = b.basePath;
        this.namespace = b.namespace;
        this.acl = b.acl;
        this.tls = b.tls;
        this.tlsCa = b.tlsCa;
    }

    /**
     * The defaults: 30 s session timeout, 5 s connect timeout, base path {@code /latchkey}.
     *
     * @return the default settings
     */
    public static ZooKeeperSettings defaults() {
        return builder().build();
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding these settings.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder b = new Builder()
                .sessionTimeout(sessionTimeout)
                .connectTimeout(connectionTimeout)
                .basePath(basePath)
                .namespace(namespace)
                .acl(acl)
                .tls(tls);
        b.tlsCa = tlsCa;
        return b;
    }

    /**
     * Reads settings from a map of texts.
     *
     *
     * @param settings setting names to texts
     * @return the settings
     * @throws IllegalArgumentException for an unknown key (the message lists the known ones) or a bad value
     */
    public static ZooKeeperSettings fromMap(Map<String, String> settings) {
        return from(Settings.of(BACKEND, settings));
    }

    /**
     * Reads settings with the SPI's typed reader (durations in its one grammar: {@code 250ms}, {@code 2s},
     * {@code 1m30s}; a bare number is rejected).
     *
     * @throws IllegalArgumentException for an unknown key (the message lists the known ones) or a bad value
     */
    static ZooKeeperSettings from(Settings settings) {
        settings.rejectUnknown(KEYS);
        if (settings.has(StoreErrors.CONNECT_TIMEOUT) && settings.has(CONNECT_TIMEOUT_ALIAS)) {
            throw new IllegalArgumentException("give connectTimeout or its earlier name connectionTimeout, not both");
        }
        Builder b = builder();
        settings.duration("sessionTimeout", MIN_TIMEOUT, MAX_TIMEOUT).ifPresent(b::sessionTimeout);
        settings.duration(StoreErrors.CONNECT_TIMEOUT, MIN_TIMEOUT, MAX_TIMEOUT).ifPresent(b::connectTimeout);
        settings.duration(CONNECT_TIMEOUT_ALIAS, MIN_TIMEOUT, MAX_TIMEOUT).ifPresent(b::connectTimeout);
        if (settings.has("basePath")) {
            b.basePath(settings.text("basePath", ""));
        }
        if (settings.has(Namespaces.SETTING)) {
            b.namespace(settings.text(Namespaces.SETTING, ""));
        }
        if (settings.has("acl")) {
            b.acl(settings.text("acl", ""));
        }
        if (settings.has("tlsCa")) {
            b.tlsCa(Path.of(settings.text("tlsCa", ""))); // before tls, so that tls=false with it is refused
        }
        if (settings.has("tls")) {
            b.tls(settings.flag("tls", false));
        }
        return b.build();
    }

    /**
     * The session timeout asked for.
     *
     * @return the session timeout
     */
    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    /**
     * How long connecting may take, and how long one operation waits for a connection.
     *
     * @return the connect timeout
     */
    public Duration connectTimeout() {
        return connectionTimeout;
    }

    /**
     * The same as {@link #connectTimeout()} (its earlier name).
     *
     * @return the connect timeout
     */
    public Duration connectionTimeout() {
        return connectionTimeout;
    }

    /**
     * The base node under which every lock lives.
     *
     * @return the base path
     */
    public String basePath() {
        return basePath;
    }

    /**
     * The namespace (possibly empty): its locks live under {@code <basePath>/ns/<namespace>}.
     *
     * @return the namespace
     */
    public String namespace() {
        return namespace;
    }

    /**
     * The base node of this namespace's locks: the base path, or {@code <basePath>/ns/<namespace>}. "ns" is neither a
     * bucket (three hex digits) nor the {@code rw} or {@code sem} area, so no namespace's node is another's.
     *
     * @return the node under which this client's locks live
     */
    public String lockRoot() {
        return namespace.isEmpty() ? basePath : basePath + "/ns/" + namespace;
    }

    /**
     * The ACL of the nodes a backend-built client creates: {@code auto}, {@code creator}, {@code open} or an explicit
     * list (see the module README, "ACLs").
     *
     * @return the acl setting
     */
    public String acl() {
        return acl;
    }

    /**
     * Whether the client connects over TLS (ZooKeeper's secure client port, Netty client socket).
     *
     * @return true for TLS
     */
    public boolean tls() {
        return tls;
    }

    /**
     * The PEM file of the certificate authorities to trust for TLS, if not the JVM's default trust store.
     *
     * @return the CA file
     */
    public Optional<Path> tlsCa() {
        return Optional.ofNullable(tlsCa);
    }

    @Override
    public String toString() {
        return "ZooKeeperSettings[sessionTimeout=" + sessionTimeout + ", connectTimeout="
                + StoreErrors.format(connectionTimeout) + ", basePath=" + basePath + ", namespace=" + namespace + ", acl=" + acl + ", tls=" + tls
                + (tlsCa == null ? "" : ", tlsCa=" + tlsCa) + "]";
    }

    /** Builder; every setter checks its argument and says what is allowed. */
    public static final class Builder {
        private Duration sessionTimeout = Duration.ofSeconds(30);
        private Duration connectionTimeout = StoreErrors.DEFAULT_CONNECT_TIMEOUT;
        private String basePath = "/latchkey";
        private String namespace = "";
        private String acl = "auto";
        private boolean tls;
        private Path tlsCa;

        private Builder() {}

        /**
         * The namespace: 0 to 64 letters, digits, {@code '.'}, {@code '_'} or {@code '-'} ({@link Namespaces}); its
         * locks live under {@code <basePath>/ns/<namespace>}, apart from every other namespace's.
         *
         * @param namespace the namespace, empty for none
         * @return this builder
         */
        public Builder namespace(String namespace) {
            this.namespace = Namespaces.check(namespace);
            return this;
        }

        /**
         * The ACL of the nodes a backend-built client creates: {@code auto} (default: {@code creator} when the client
         * authenticates, else {@code open}), {@code creator} (lock nodes writable only by the identity that created
         * them, readable by all), {@code open}, or a list of {@code scheme:id:perms} entries separated by commas
         * (perms from {@code cdrwa}) used for every node.
         *
         * @param acl one of the forms above
         * @return this builder
         */
        public Builder acl(String acl) {
            this.acl = ZooKeeperAcls.check(acl);
            return this;
        }

        /**
         * Whether to connect over TLS, to the servers' secure client port.
         *
         * @param tls true for TLS
         * @return this builder
         */
        public Builder tls(boolean tls) {
            this.tls = tls;
            return this;
        }

        /**
         * The PEM file of the certificate authorities to trust (implies TLS): a readable file.
         *
         * @param caPem the file
         * @return this builder
         */
        public Builder tlsCa(Path caPem) {
            if (caPem == null || !Files.isRegularFile(caPem) || !Files.isReadable(caPem)) {
                throw new IllegalArgumentException(
                        "tlsCa must be a readable PEM file of CA certificates, was '" + caPem + "'");
            }
            this.tlsCa = caPem;
            this.tls = true;
            return this;
        }

        /**
         * The session timeout to ask for: 100 ms to 1 h (the server may negotiate it).
         *
         * @param d 100 ms to 1 h
         * @return this builder
         */
        public Builder sessionTimeout(Duration d) {
            sessionTimeout = timeout(d, "sessionTimeout");
            return this;
        }

        /**
         * How long connecting may take, and one operation waits for a connection: 100 ms to 1 h, at most the session timeout.
         *
         * @param d 100 ms to 1 h, at most the session timeout
         * @return this builder
         */
        public Builder connectTimeout(Duration d) {
            connectionTimeout = timeout(d, StoreErrors.CONNECT_TIMEOUT);
            return this;
        }

        /**
         * The same as {@link #connectTimeout(Duration)} (its earlier name).
         *
         * @param d as for {@link #connectTimeout(Duration)}
         * @return this builder
         */
        public Builder connectionTimeout(Duration d) {
            return connectTimeout(d);
        }

        /**
         * The base node: an absolute ZooKeeper path such as {@code /latchkey}, not {@code /}, not under {@code /zookeeper}.
         *
         * @param path an absolute path, not {@code /}, not under {@code /zookeeper}
         * @return this builder
         */
        public Builder basePath(String path) {
            if (path == null || path.isEmpty() || path.equals("/") || !path.startsWith("/") || path.endsWith("/")) {
                throw new IllegalArgumentException("basePath must be an absolute ZooKeeper path below the root without "
                        + "a trailing '/', such as /latchkey or /apps/locks; was '" + path + "'");
            }
            if (path.equals("/zookeeper") || path.startsWith("/zookeeper/")) {
                throw new IllegalArgumentException(
                        "basePath must not be under /zookeeper, which ZooKeeper reserves; was '" + path + "'");
            }
            try {
                PathUtils.validatePath(path);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "basePath '" + path + "' is not a valid ZooKeeper path: " + e.getMessage(), e);
            }
            basePath = path;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the settings
         * @throws IllegalArgumentException if the connect timeout exceeds the session timeout
         */
        public ZooKeeperSettings build() {
            if (tlsCa != null && !tls) {
                throw new IllegalArgumentException("tls=false contradicts tlsCa: give tls=true or leave tlsCa out");
            }
            if (connectionTimeout.compareTo(sessionTimeout) > 0) {
                throw new IllegalArgumentException("connectTimeout (" + StoreErrors.format(connectionTimeout)
                        + ") must not " + "exceed sessionTimeout (" + StoreErrors.format(sessionTimeout) + ")");
            }
            return new ZooKeeperSettings(this);
        }

        private static Duration timeout(Duration d, String what) {
            if (d == null || d.compareTo(MIN_TIMEOUT) < 0 || d.compareTo(MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException(what + " must be between " + MIN_TIMEOUT.toMillis() + " ms and "
                        + MAX_TIMEOUT.toHours() + " h, was " + d);
            }
            return d;
        }
    }
}
