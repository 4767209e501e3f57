package io.latchkey.redis;

import io.latchkey.spi.PemTls;
import io.latchkey.spi.DurationText;
import io.latchkey.spi.Namespaces;
import io.latchkey.spi.Settings;
import io.latchkey.spi.StoreErrors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Tuning of a Redis or Redlock backend. Immutable; build with {@link #builder()} or read from the settings
 * map of {@code Latchkey.connect(uri, settings)} (or the URI's query string) with {@link #fromMap(Map)}, through
 * the SPI's {@link Settings} reader: durations in its one grammar ({@code 250ms}, {@code 2s}, {@code 1.5s},
 * {@code 1m30s}; a bare number is rejected), and every error names the key and what is allowed.
 *
 * <ul>
 *   <li>{@code timeout}: per-node request timeout (socket read timeout, pool borrow wait). Default 2 s for a
 *       single node, 200 ms for Redlock, where it must stay far below the lease.</li>
 *   <li>{@code connectTimeout}: the time allowed to reach a server: the check of every node when the backend
 *       is created from a URI (TCP connect, TLS handshake, AUTH, PING), and the TCP connect of every new
 *       connection; default 5 s ({@link StoreErrors#DEFAULT_CONNECT_TIMEOUT}), the same name and default on
 *       every Latchkey scheme.</li>
 *   <li>{@code namespace} (settings only): adds {@code <namespace>:} to the key prefix, the same setting on every
 *       scheme; a namespace has no ':' or '{', so its keys are never another namespace's or the default's.</li>
 *   <li>{@code keyPrefix}: prefix of every key (default {@code latchkey:}); no braces, spaces or control
 *       characters.</li>
 *   <li>{@code poolSize}: connections per node when the backend builds its own pool (default 16).</li>
 *   <li>{@code clockDrift}: allowed clock-rate difference between client and server, as a fraction of the
 *       lease (default 0.01). Validity = lease - elapsed - (clockDrift x lease + 2 ms).</li>
 *   <li>{@code clientName}: CLIENT SETNAME for connections the backend opens (default {@code latchkey}).</li>
 *   <li>{@code tls}: use TLS for every Redlock node ({@code rediss://} does this for a single node;
 *       {@code redis://} with any TLS setting is rejected, since its scheme says plain text).</li>
 *   <li>{@code tlsCa}: PEM file with the certificate(s) of the CA(s) to trust instead of the JVM's default
 *       trust store (a managed Redis with a private CA).</li>
 *   <li>{@code tlsCert}, {@code tlsKey}: client certificate (PEM, may hold the chain) and its unencrypted
 *       PKCS#8 PEM key, for servers that require mutual TLS; together or neither.</li>
 *   <li>{@code addressMap}: for {@code redis-sentinel://} and {@code redis-cluster://}, whose clients learn the data
 *       nodes' addresses from the store: the address to connect to instead of an address the store announces, as
 *       {@code announced=reachable} pairs separated by commas ({@code 10.0.0.5:6379=redis-a.example:16379}), for
 *       nodes behind NAT, port forwarding or a proxy. An announced address not in the map is used as it is.</li>
 * </ul>
 *
 * As in lock-etcd, {@code tlsCa} or {@code tlsCert} imply {@code tls=true}; {@code tls=false} together with a
 * TLS file is a contradiction and rejected. Hostname verification is always on. TLS settings apply to
 * pools the backend builds from a URI; an application's own pools carry their own TLS configuration.
 *
 * Credentials are not kept here (so that no {@code toString()} can show them): they go in the URI's user-info,
 * or in the settings {@code user} and {@code password} of {@code Latchkey.connect}, which the URI parser takes
 * out before the rest reaches {@link #fromMap(Map)}, or into the application's own Jedis client.
 */
public final class RedisSettings {
    /** The keys {@link #fromMap(Map)} accepts. */
    public static final Set<String> KEYS = Set.of(
            "timeout",
            "connectTimeout",
            "keyPrefix",
            Namespaces.SETTING,
            "poolSize",
            "clockDrift",
            "clientName",
            "tls",
            "tlsCa",
            "tlsCert",
            "tlsKey",
            "addressMap");

    static final Duration SINGLE_NODE_TIMEOUT = Duration.ofSeconds(2);
    static final Duration REDLOCK_TIMEOUT = Duration.ofMillis(200);
    static final String BACKEND = "Redis";
    static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
    static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

    private final Duration timeout;
    private final Duration connectTimeout;
    private final String keyPrefix;
    private final int poolSize;
    private final double clockDrift;
    private final String clientName;
    private final Boolean tls;
    private final Path tlsCa;
    private final Path tlsCert;
    private final Path tlsKey;
    private final Map<String, String> addressMap;

    private RedisSettings(Builder b) {
        this.timeout = b.timeout;
        this.connectTimeout = b.connectTimeout;
        this.keyPrefix = b.keyPrefix;
        this.poolSize = b.poolSize;
        this.clockDrift = b.clockDrift;
        this.clientName = b.clientName;
        this.tls = b.tls;
        this.tlsCa = b.tlsCa;
        this.tlsCert = b.tlsCert;
        this.tlsKey = b.tlsKey;
        this.addressMap = b.addressMap;
    }

    /**
     * Defaults everywhere.
     *
     * @return the default settings
     */
    public static RedisSettings defaults() {
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
        Builder b = new Builder();
        b.timeout = timeout;
        b.connectTimeout = connectTimeout;
        b.keyPrefix = keyPrefix;
        b.poolSize = poolSize;
        b.clockDrift = clockDrift;
        b.clientName = clientName;
        b.tls = tls;
        b.tlsCa = tlsCa;
        b.tlsCert = tlsCert;
        b.tlsKey = tlsKey;
        b.addressMap = addressMap;
        return b;
    }

    /**
     * Reads settings from a map of texts (see {@link #fromSettings(Settings)}).
     *
     *
     * @param settings setting names to texts
     * @return the settings
     * @throws IllegalArgumentException for an unknown key (the message lists the known ones) or a bad value
     */
    public static RedisSettings fromMap(Map<String, String> settings) {
        return fromSettings(Settings.of(BACKEND, settings));
    }

    /**
     * Reads settings with the SPI's reader: durations in the one grammar of {@link DurationText} ({@code 250ms},
     * {@code 2s}, {@code 1.5s}, {@code 1m30s}; a bare number is rejected), numbers and flags with their bounds.
     *
     * @throws IllegalArgumentException for an unknown key (the message lists the known ones) or a bad value,
     *         naming the key and what is allowed
     */
    static RedisSettings fromSettings(Settings s) {
        return RedisSettingsReader.read(s);
    }

    /**
     * The per-node timeout if set, else empty (the backend picks 2 s for one node, 200 ms for Redlock).
     *
     * @return the timeout, or empty
     */
    public Optional<Duration> timeout() {
        return Optional.ofNullable(timeout);
    }

    /**
     * The connect timeout if set, else empty (then it is {@link StoreErrors#DEFAULT_CONNECT_TIMEOUT}, 5 s).
     *
     * @return the connect timeout, or empty
     */
    public Optional<Duration> connectTimeout() {
        return Optional.ofNullable(connectTimeout);
    }

    /** The connect timeout in force: the one set, else 5 s. */
    Duration connectTimeoutOrDefault() {
        return connectTimeout != null ? connectTimeout : StoreErrors.DEFAULT_CONNECT_TIMEOUT;
    }

    /**
     * The prefix of every key.
     *
     * @return the key prefix, possibly empty
     */
    public String keyPrefix() {
        return keyPrefix;
    }

    /**
     * Connections per node in pools the backend builds.
     *
     * @return the pool size
     */
    public int poolSize() {
        return poolSize;
    }

    /**
     * Clock-rate drift allowed between client and servers, as a fraction of the lease.
     *
     * @return the drift, 0 to 0.5
     */
    public double clockDrift() {
        return clockDrift;
    }

    /**
     * The name of the backend's connections ({@code CLIENT SETNAME}).
     *
     * @return the client name
     */
    public String clientName() {
        return clientName;
    }

    /**
     * Whether TLS is on: {@code tls=true}, or implied by {@code tlsCa} or {@code tlsCert}.
     *
     * @return whether TLS is on
     */
    public boolean tls() {
        return Boolean.TRUE.equals(tls) || tlsCa != null || tlsCert != null;
    }

    /** Whether any TLS setting was given (even {@code tls=false}). */
    boolean anyTlsSetting() {
        return tls != null || tlsCa != null || tlsCert != null;
    }

    /**
     * PEM file of the CA(s) to trust, if set (else the JVM's default trust store).
     *
     * @return the CA file, or empty
     */
    public Optional<Path> tlsCa() {
        return Optional.ofNullable(tlsCa);
    }

    /**
     * PEM client certificate for mutual TLS, if set (then {@link #tlsKey()} is set too).
     *
     * @return the certificate file, or empty
     */
    public Optional<Path> tlsCert() {
        return Optional.ofNullable(tlsCert);
    }

    /**
     * Unencrypted PKCS#8 PEM key of {@link #tlsCert()}, if set.
     *
     * @return the key file, or empty
     */
    public Optional<Path> tlsKey() {
        return Optional.ofNullable(tlsKey);
    }

    /**
     * Where to connect instead of an address a Sentinel or a cluster announces ({@code host:port} to
     * {@code host:port}); empty by default.
     *
     * @return announced address to reachable address, immutable
     */
    public Map<String, String> addressMap() {
        return addressMap;
    }

    Duration timeoutOr(Duration fallback) {
        return timeout != null ? timeout : fallback;
    }

    @Override
    public String toString() {
        return "RedisSettings[timeout=" + (timeout == null ? "default" : DurationText.format(timeout))
                + ", connectTimeout=" + (connectTimeout == null ? "default" : DurationText.format(connectTimeout))
                + ", keyPrefix='" + keyPrefix + "', poolSize=" + poolSize + ", clockDrift=" + clockDrift
                + ", clientName="
                + clientName + ", tls=" + tls() + (tlsCa == null ? "" : ", tlsCa=" + tlsCa)
                + (tlsCert == null ? "" : ", tlsCert=" + tlsCert + ", tlsKey=" + tlsKey)
                + (addressMap.isEmpty() ? "" : ", addressMap=" + addressMap) + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RedisSettings s
                && Objects.equals(timeout, s.timeout)
                && Objects.equals(connectTimeout, s.connectTimeout)
                && keyPrefix.equals(s.keyPrefix)
                && poolSize == s.poolSize
                && clockDrift == s.clockDrift
                && clientName.equals(s.clientName)
                && Objects.equals(tls, s.tls)
                && Objects.equals(tlsCa, s.tlsCa)
                && Objects.equals(tlsCert, s.tlsCert)
                && Objects.equals(tlsKey, s.tlsKey)
                && addressMap.equals(s.addressMap);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                timeout,
                connectTimeout,
                keyPrefix,
                poolSize,
                clockDrift,
                clientName,
                tls,
                tlsCa,
                tlsCert,
                tlsKey,
                addressMap);
    }

    /** Builder; every setter checks its argument. Not thread-safe. */
    public static final class Builder {
        private Duration timeout;
        private Duration connectTimeout;
        private String keyPrefix = "latchkey:";
        private int poolSize = 16;
        private double clockDrift = 0.01;
        private String clientName = "latchkey";
        private Boolean tls;
        private Path tlsCa;
        private Path tlsCert;
        private Path tlsKey;
        private Map<String, String> addressMap = Map.of();

        private Builder() {}

        /**
         * Per-node request timeout: positive, at most 10 minutes.
         *
         * @param timeout positive, at most 10 minutes
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            this.timeout = checkTimeout(timeout, "timeout");
            return this;
        }

        /**
         * Time allowed to reach a server (check at creation, TCP connect): positive, at most 10 minutes.
         *
         * @param connectTimeout positive, at most 10 minutes
         * @return this builder
         */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = checkTimeout(connectTimeout, "connectTimeout");
            return this;
        }

        /**
         * Prefix of every key: up to 130 characters (room for a 64-character prefix and a namespace with its ':'),
         * without '{', '}' (they would break the hash tag), whitespace or control characters; may be empty.
         *
         * @param keyPrefix the prefix, may be empty
         * @return this builder
         */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null) {
                throw new IllegalArgumentException("keyPrefix must not be null; pass \"\" for no prefix");
            }
            if (keyPrefix.length() > 130) {
                throw new IllegalArgumentException(
                        "keyPrefix must be at most 130 characters, was " + keyPrefix.length());
            }
            for (int i = 0; i < keyPrefix.length(); i++) {
                char c = keyPrefix.charAt(i);
                if (c == '{' || c == '}' || Character.isWhitespace(c) || Character.isISOControl(c)) {
                    throw new IllegalArgumentException(String.format(
                            "keyPrefix must not contain braces, whitespace or "
                                    + "control characters (found U+%04X at index %d in '%s'); letters, digits and :-_./ are fine",
                            (int) c, i, keyPrefix.replaceAll("\\p{Cntrl}", "?")));
                }
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * Connections per node in a pool the backend builds itself: 1 to 1024.
         *
         * @param poolSize 1 to 1024
         * @return this builder
         */
        public Builder poolSize(int poolSize) {
            if (poolSize < 1 || poolSize > 1024) {
                throw new IllegalArgumentException("poolSize must be between 1 and 1024, was " + poolSize);
            }
            this.poolSize = poolSize;
            return this;
        }

        /**
         * Clock-rate drift allowed between client and servers, as a fraction of the lease: 0 to 0.5.
         *
         * @param clockDrift 0 to 0.5
         * @return this builder
         */
        public Builder clockDrift(double clockDrift) {
            if (!(clockDrift >= 0 && clockDrift <= 0.5)) {
                throw new IllegalArgumentException("clockDrift must be a fraction between 0 and 0.5 (0.01 = 1% of the "
                        + "lease), was " + clockDrift);
            }
            this.clockDrift = clockDrift;
            return this;
        }

        /**
         * Connection name shown by CLIENT LIST: 1-64 characters without spaces or control characters.
         *
         * @param clientName 1 to 64 characters
         * @return this builder
         */
        public Builder clientName(String clientName) {
            if (clientName == null
                    || clientName.isEmpty()
                    || clientName.length() > 64
                    || !clientName.chars().allMatch(c -> c > 0x20 && c < 0x7F)) {
                throw new IllegalArgumentException(
                        "clientName must be 1-64 printable ASCII characters without spaces, was '"
                                + (clientName == null ? null : clientName.replaceAll("\\p{Cntrl}", "?")) + "'");
            }
            this.clientName = clientName;
            return this;
        }

        /**
         * TLS for every Redlock node (implied by {@link #tlsCa} and {@link #tlsCert}).
         *
         * @param tls whether to use TLS
         * @return this builder
         */
        public Builder tls(boolean tls) {
            this.tls = tls;
            return this;
        }

        /**
         * PEM file with the CA certificate(s) to trust instead of the JVM's default trust store; implies TLS.
         *
         * @param caPem the CA file
         * @return this builder
         */
        public Builder tlsCa(Path caPem) {
            this.tlsCa = PemTls.requirePath(caPem, "tlsCa");
            return this;
        }

        /**
         * PEM client certificate (chain) for mutual TLS; needs {@link #tlsKey}; implies TLS.
         *
         * @param certificatePem the certificate file
         * @return this builder
         */
        public Builder tlsCert(Path certificatePem) {
            this.tlsCert = PemTls.requirePath(certificatePem, "tlsCert");
            return this;
        }

        /**
         * Unencrypted PKCS#8 PEM key ({@code -----BEGIN PRIVATE KEY-----}) of {@link #tlsCert}.
         *
         * @param keyPem the key file
         * @return this builder
         */
        public Builder tlsKey(Path keyPem) {
            this.tlsKey = PemTls.requirePath(keyPem, "tlsKey");
            return this;
        }

        /**
         * Where to connect instead of an address a Sentinel or a cluster announces: each key and value
         * {@code host:port} (port 1 to 65535). For {@code redis-sentinel://} and {@code redis-cluster://} URIs;
         * the other topologies are given their nodes' addresses and reject it.
         *
         * @param announcedToReachable announced address to the address to connect to instead; copied
         * @return this builder
         */
        public Builder addressMap(Map<String, String> announcedToReachable) {
            this.addressMap = RedisAddressMap.check(announcedToReachable);
            return this;
        }

        /**
         * @return the settings
         * @throws IllegalArgumentException when only one of tlsCert and tlsKey is given, or tls=false is given
         *         with a TLS file
         */
        public RedisSettings build() {
            PemTls.checkSettings(tls, tlsCa, tlsCert, tlsKey);
            return new RedisSettings(this);
        }

        private static Duration checkTimeout(Duration d, String what) {
            if (d == null || d.isZero() || d.isNegative()) {
                throw new IllegalArgumentException(what + " must be a positive duration, was " + d);
            }
            if (d.compareTo(MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException(what + " must be at most 10 minutes, was " + d);
            }
            if (d.toMillis() == 0) {
                throw new IllegalArgumentException(
                        what + " must be at least 1 ms (Redis clients count in milliseconds), was " + d);
            }
            return d;
        }
    }
}
