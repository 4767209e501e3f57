package io.latchkey.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * How an etcd backend keeps its lease and talks to the cluster. Immutable; build with {@link #builder()}.
 * Every setter checks its argument at once and says what is allowed.
 *
 * <ul>
 *   <li>{@code namespace} ({@code latchkey}): the key prefix; contender keys are
 *       {@code <namespace>/<hex of the name's UTF-8 bytes>/<lease id in hex>}.</li>
 *   <li>{@code leaseTtl} (30 s): the TTL of the one lease this client keeps alive. etcd counts TTLs in whole
 *       seconds, so it is rounded <em>up</em> to whole seconds, and the server may raise it further to its
 *       minimum (etcd 3.4: 1.5 election timeouts, 2 s by default). It bounds how long a dead client's locks
 *       stay held. It is the same for every lock of the client: see the module README.</li>
 *   <li>{@code requestTimeout} (5 s): how long one request may take before the call fails with
 *       {@link io.latchkey.BackendUnavailableException}.</li>
 *   <li>{@code waitRecheck} (2 s): while a waiter waits for its predecessor's key to be deleted, it also
 *       re-reads the queue this often, so a watch stream stuck on a frozen member cannot strand it.</li>
 * </ul>
 */
public final class EtcdSettings {
    static final Duration MAX_TTL = Duration.ofDays(365);
    private static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);
    private static final EtcdSettings DEFAULTS = builder().build();

    private final String namespace;
    private final long leaseTtlSeconds;
    private final Duration requestTimeout;
    private final Duration waitRecheck;

    private EtcdSettings(Builder b) {
        this.namespace = b.namespace;
        this.leaseTtlSeconds = b.leaseTtlSeconds;
        this.requestTimeout = b.requestTimeout;
        this.waitRecheck = b.waitRecheck;
    }

    /**
     * Namespace {@code latchkey}, lease TTL 30 s, request timeout 5 s, wait re-check every 2 s.
     *
     * @return the default settings
     */
    public static EtcdSettings defaults() {
        return DEFAULTS;
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
        b.namespace = namespace;
        b.leaseTtlSeconds = leaseTtlSeconds;
        b.requestTimeout = requestTimeout;
        b.waitRecheck = waitRecheck;
        return b;
    }

    /**
     * The key prefix, without a trailing slash.
     *
     * @return the namespace
     */
    public String namespace() {
        return namespace;
    }

    /**
     * The lease TTL this client asks for, in whole seconds.
     *
     * @return the lease TTL
     */
    public Duration leaseTtl() {
        return Duration.ofSeconds(leaseTtlSeconds);
    }

    long leaseTtlSeconds() {
        return leaseTtlSeconds;
    }

    /**
     * The timeout of one request.
     *
     * @return the request timeout
     */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /**
     * How often a waiter re-reads its queue besides its watch.
     *
     * @return the re-check interval
     */
    public Duration waitRecheck() {
        return waitRecheck;
    }

    @Override
    public String toString() {
        return "EtcdSettings[namespace='" + namespace + "', leaseTtl=" + leaseTtlSeconds + "s, requestTimeout="
                + requestTimeout + ", waitRecheck=" + waitRecheck + "]";
    }

    /** Builder for {@link EtcdSettings}; not thread-safe. */
    public static final class Builder {
        private String namespace = "latchkey";
        private long leaseTtlSeconds = 30;
        private Duration requestTimeout = Duration.ofSeconds(5);
        private Duration waitRecheck = Duration.ofSeconds(2);

        private Builder() {}

        /**
         * Key prefix: 1 to 200 UTF-8 bytes, no control characters; a trailing {@code /} is dropped. Two
         * applications with different namespaces never see each other's locks.
         *
         * @param namespace the key prefix
         * @return this builder
         */
        public Builder namespace(String namespace) {
            if (namespace == null) {
                throw new IllegalArgumentException("namespace must not be null; the default is 'latchkey'");
            }
            String n = namespace;
            while (n.endsWith("/")) {
                n = n.substring(0, n.length() - 1);
            }
            if (n.isEmpty() || n.getBytes(StandardCharsets.UTF_8).length > 200) {
                throw new IllegalArgumentException(
                        "namespace must be 1 to 200 UTF-8 bytes (a trailing '/' is dropped), was '" + namespace + "'");
            }
            if (n.chars().anyMatch(c -> c < 0x20 || (c >= 0x7F && c <= 0x9F))) {
                throw new IllegalArgumentException("namespace must not contain control characters, was '"
                        + namespace.replaceAll("\\p{Cntrl}", "?") + "'");
            }
            this.namespace = n;
            return this;
        }

        /**
         * TTL of the client's lease: positive, at most 365 days; rounded up to whole seconds (etcd's unit). The
         * server may raise it to its own minimum (2 s on a default etcd 3.4).
         *
         * @param ttl positive, at most 365 days
         * @return this builder
         */
        public Builder leaseTtl(Duration ttl) {
            if (ttl == null || ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException(
                        "leaseTtl must be a positive duration (whole seconds; the server's minimum"
                                + " is usually 2 s), was " + ttl);
            }
            if (ttl.compareTo(MAX_TTL) > 0) {
                throw new IllegalArgumentException("leaseTtl must be at most 365 days, was " + ttl);
            }
            long seconds = ttl.getSeconds() + (ttl.getNano() > 0 ? 1 : 0);
            this.leaseTtlSeconds = seconds;
            return this;
        }

        /**
         * Timeout of one request: positive, at most 10 minutes.
         *
         * @param timeout positive, at most 10 minutes
         * @return this builder
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = checkTimeout(timeout, "requestTimeout");
            return this;
        }

        /**
         * How often a waiter re-reads the queue besides its watch: positive, at most 10 minutes.
         *
         * @param interval positive, at most 10 minutes
         * @return this builder
         */
        public Builder waitRecheck(Duration interval) {
            this.waitRecheck = checkTimeout(interval, "waitRecheck");
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the settings
         */
        public EtcdSettings build() {
            return new EtcdSettings(this);
        }

        private static Duration checkTimeout(Duration d, String what) {
            if (d == null || d.isNegative() || d.isZero() || d.compareTo(MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException(
                        what + " must be a positive duration of at most 10 minutes, was " + d);
            }
            if (d.toMillis() < 1) {
                throw new IllegalArgumentException(what + " must be at least 1 ms, was " + d);
            }
            return d;
        }
    }
}
