package io.latchkey.mongodb;

import io.latchkey.spi.DurationText;
import io.latchkey.spi.PemTls;
import io.latchkey.spi.Settings;
import io.latchkey.spi.StoreErrors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Tuning of a MongoDB backend. Immutable; build with {@link #builder()}, or read from the Latchkey settings of a
 * {@code mongodb://} URI (the query parameters with these names, and the settings map of
 * {@code Latchkey.connect}); every other query parameter is the driver's own ({@code replicaSet},
 * {@code authSource}, {@code tls}, ...).
 *
 * <ul>
 *   <li>{@code database}: the database of the lock collection; default the URI's path ({@code /locks}), else
 *       {@code latchkey}.</li>
 *   <li>{@code collection}: the lock collection (default {@code latchkey_locks}); one document per name.</li>
 *   <li>{@code namespace}: the start of every document id, {@code <namespace>/<name>} (default none: {@code /<name>}),
 *       so that applications sharing a collection never see or release each other's locks: the founding design's
 *       "business type"; 0 to 64 letters, digits, '.', '_' or '-', the same setting on every scheme.</li>
 *   <li>{@code timeout}: how long one operation may wait for the server's reply (socket read timeout; default
 *       2 s).</li>
 *   <li>{@code connectTimeout}: the time allowed to find a usable server: the check at connect (a {@code ping})
 *       and server selection for every operation (default 5 s, as on every Latchkey scheme).</li>
 *   <li>{@code writeConcern}: {@code majority} (default) or {@code w1}: with {@code w1} a primary fail-over can
 *       lose a grant that only the old primary had (see the module README).</li>
 *   <li>{@code readConcern}: {@code majority} (default), {@code local} or {@code linearizable}, for inspect and
 *       list and the read after a busy answer.</li>
 *   <li>{@code changeStreams}: {@code auto} (default), {@code on} or {@code off}: how waiters learn of a release.
 *       With change streams one stream per client wakes a waiter the moment a release is written ({@code NATIVE_WAIT});
 *       without them waiters poll with the core's backoff. {@code auto} uses them when the driver finds a replica set,
 *       a sharded cluster or a load-balanced deployment (a standalone {@code mongod} has no change streams); {@code on} uses
 *       them whatever the server says, for servers that have them but do not say so.</li>
 *   <li>{@code tlsCa}, {@code tlsCert}, {@code tlsKey}: PEM files, as on every Latchkey scheme: the CAs to trust
 *       instead of the JVM's trust store, and a client certificate with its unencrypted PKCS#8 key (they go
 *       together). Any of them turns TLS on; the driver's {@code tls=false} with one is refused. The driver's own
 *       {@code tls=true} (or {@code mongodb+srv://}) without them uses the JVM's trust store. The Java driver reads
 *       no {@code tlsCAFile} or {@code tlsCertificateKeyFile}; given, they are refused with the setting to use.</li>
 * </ul>
 */
public final class MongoSettings {
    /** The Latchkey keys of a MongoDB URI or settings map. */
    public static final Set<String> KEYS =
            Set.of(
            "database",
            "collection",
            "namespace",
            "timeout",
            "connectTimeout",
            "writeConcern",
            "readConcern",
            "changeStreams",
            "tlsCa",
            "tlsCert",
            "tlsKey");

    static final String BACKEND = "MongoDB";
    static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
    static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

    /** How grants are written. */
    public enum WriteConcernLevel {
        /** Acknowledged by a majority of the replica set's voting members (default). */
        MAJORITY,
        /** Acknowledged by the primary alone: faster, and a fail-over can lose the last grants. */
        W1
    }

    /** How inspect, list and the read after a busy answer read. */
    public enum ReadConcernLevel {
        /** What a majority has acknowledged (default). */
        MAJORITY,
        /** The primary's latest, possibly rolled back after a fail-over. */
        LOCAL,
        /** As majority, and reflecting every write acknowledged before the read began. */
        LINEARIZABLE
    }

    /** How waiters learn of a release. */
    public enum ChangeStreamMode {
        /** Change streams on a replica set, a sharded cluster or a load-balanced deployment (default). */
        AUTO,
        /** Change streams whatever the server says of itself. */
        ON,
        /** The core's polling with backoff. */
        OFF
    }

    private final String database;
    private final String collection;
    private final String namespace;
    private final Duration timeout;
    private final Duration connectTimeout;
    private final WriteConcernLevel writeConcern;
    private final ReadConcernLevel readConcern;
    private final ChangeStreamMode changeStreams;
    private final @Nullable Path tlsCa;
    private final @Nullable Path tlsCert;
    private final @Nullable Path tlsKey;

    private MongoSettings(Builder b) {
        this.database = b.database;
        this.collection = b.collection;
        this.namespace = b.namespace;
        this.timeout = b.timeout;
        this.connectTimeout = b.connectTimeout;
        this.writeConcern = b.writeConcern;
        this.readConcern = b.readConcern;
        this.changeStreams = b.changeStreams;
        this.tlsCa = b.tlsCa;
        this.tlsCert = b.tlsCert;
        this.tlsKey = b.tlsKey;
    }

    /**
     * Defaults everywhere.
     *
     * @return the default settings
     */
    public static MongoSettings defaults() {
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
        b.database = database;
        b.collection = collection;
        b.namespace = namespace;
        b.timeout = timeout;
        b.connectTimeout = connectTimeout;
        b.writeConcern = writeConcern;
        b.readConcern = readConcern;
        b.changeStreams = changeStreams;
        b.tlsCa = tlsCa;
        b.tlsCert = tlsCert;
        b.tlsKey = tlsKey;
        return b;
    }

    /** Reads the Latchkey settings; {@code uriDatabase} is the URI's path, or null. */
    static MongoSettings read(Settings s, String uriDatabase) {
        s.rejectUnknown(KEYS);
        Builder b = builder();
        if (s.has("database")) {
            b.database(s.text("database", ""));
        } else if (uriDatabase != null && !uriDatabase.isEmpty()) {
            b.database(uriDatabase);
        }
        if (s.has("collection")) {
            b.collection(s.text("collection", ""));
        }
        if (s.has("namespace")) {
            b.namespace(s.text("namespace", ""));
        }
        s.duration("timeout", MIN_TIMEOUT, MAX_TIMEOUT).ifPresent(b::timeout);
        s.duration(StoreErrors.CONNECT_TIMEOUT, MIN_TIMEOUT, MAX_TIMEOUT).ifPresent(b::connectTimeout);
        b.writeConcern(s.choice("writeConcern", WriteConcernLevel.class, WriteConcernLevel.MAJORITY));
        b.readConcern(s.choice("readConcern", ReadConcernLevel.class, ReadConcernLevel.MAJORITY));
        b.changeStreams(s.choice("changeStreams", ChangeStreamMode.class, ChangeStreamMode.AUTO));
        s.text("tlsCa").ifPresent(f -> b.tlsCa(Path.of(f)));
        s.text("tlsCert").ifPresent(f -> b.tlsCert(Path.of(f)));
        s.text("tlsKey").ifPresent(f -> b.tlsKey(Path.of(f)));
        return b.build();
    }

    /**
     * The lock collection's database.
     *
     * @return the database name
     */
    public String database() {
        return database;
    }

    /**
     * The lock collection.
     *
     * @return the collection name
     */
    public String collection() {
        return collection;
    }

    /**
     * The prefix of every document id, possibly empty.
     *
     * @return the namespace
     */
    public String namespace() {
        return namespace;
    }

    /**
     * How long one operation waits for the server's reply.
     *
     * @return the timeout
     */
    public Duration timeout() {
        return timeout;
    }

    /**
     * The time allowed to find a usable server.
     *
     * @return the connect timeout
     */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /**
     * How grants are written.
     *
     * @return the write concern
     */
    public WriteConcernLevel writeConcern() {
        return writeConcern;
    }

    /**
     * How inspect and list read.
     *
     * @return the read concern
     */
    public ReadConcernLevel readConcern() {
        return readConcern;
    }

    /**
     * How waiters learn of a release.
     *
     * @return auto, on or off
     */
    public ChangeStreamMode changeStreams() {
        return changeStreams;
    }

    /**
     * The CAs to trust (PEM), if set; then TLS is on.
     *
     * @return the file, or empty for the JVM's trust store
     */
    public Optional<Path> tlsCa() {
        return Optional.ofNullable(tlsCa);
    }

    /**
     * The client certificate (PEM, may hold its chain), if set; then {@link #tlsKey()} is set too.
     *
     * @return the file, or empty
     */
    public Optional<Path> tlsCert() {
        return Optional.ofNullable(tlsCert);
    }

    /**
     * The client certificate's unencrypted PKCS#8 PEM key, if set.
     *
     * @return the file, or empty
     */
    public Optional<Path> tlsKey() {
        return Optional.ofNullable(tlsKey);
    }

    /** Whether a PEM file was given, which turns TLS on. */
    boolean anyTlsFile() {
        return tlsCa != null || tlsCert != null;
    }

    @Override
    public String toString() {
        return "MongoSettings[database=" + database + ", collection=" + collection + ", namespace='" + namespace
                + "', timeout=" + DurationText.format(timeout) + ", connectTimeout="
                + DurationText.format(connectTimeout) + ", writeConcern=" + writeConcern.name().toLowerCase(Locale.ROOT)
                + ", readConcern=" + readConcern.name().toLowerCase(Locale.ROOT) + ", changeStreams="
                + changeStreams.name().toLowerCase(Locale.ROOT) + (tlsCa == null ? "" : ", tlsCa=" + tlsCa)
                + (tlsCert == null ? "" : ", tlsCert=" + tlsCert + ", tlsKey=" + tlsKey) + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MongoSettings m
                && database.equals(m.database)
                && collection.equals(m.collection)
                && namespace.equals(m.namespace)
                && timeout.equals(m.timeout)
                && connectTimeout.equals(m.connectTimeout)
                && writeConcern == m.writeConcern
                && readConcern == m.readConcern
                && changeStreams == m.changeStreams
                && Objects.equals(tlsCa, m.tlsCa)
                && Objects.equals(tlsCert, m.tlsCert)
                && Objects.equals(tlsKey, m.tlsKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                database,
                collection,
                namespace,
                timeout,
                connectTimeout,
                writeConcern,
                readConcern,
                changeStreams,
                tlsCa,
                tlsCert,
                tlsKey);
    }

    /** Builder; every setter checks its argument. Not thread-safe. */
    public static final class Builder {
        private String database = "latchkey";
        private String collection = "latchkey_locks";
        private String namespace = "";
        private Duration timeout = Duration.ofSeconds(2);
        private Duration connectTimeout = StoreErrors.DEFAULT_CONNECT_TIMEOUT;
        private WriteConcernLevel writeConcern = WriteConcernLevel.MAJORITY;
        private ReadConcernLevel readConcern = ReadConcernLevel.MAJORITY;
        private ChangeStreamMode changeStreams = ChangeStreamMode.AUTO;
        private @Nullable Path tlsCa;
        private @Nullable Path tlsCert;
        private @Nullable Path tlsKey;

        private Builder() {}

        /**
         * The database: 1 to 63 characters, none of {@code /\. "$}, no whitespace or control characters.
         *
         * @param database the database name
         * @return this builder
         */
        public Builder database(String database) {
            this.database = name(database, "database", 63, "/\\. \"$");
            return this;
        }

        /**
         * The collection: 1 to 120 characters, no {@code $}, not starting with {@code system.}, no control characters.
         *
         * @param collection the collection name
         * @return this builder
         */
        public Builder collection(String collection) {
            String c = name(collection, "collection", 120, "$");
            if (c.startsWith("system.")) {
                throw new IllegalArgumentException(
                        "collection must not start with 'system.' (MongoDB reserves it), was '" + c + "'");
            }
            this.collection = c;
            return this;
        }

        /**
         * The namespace, the start of every document id ({@code <namespace>/<name>}): 0 to 64 letters, digits,
         * {@code '.'}, {@code '_'} or {@code '-'} (the grammar of every scheme's namespace setting).
         *
         * @param namespace the prefix
         * @return this builder
         */
        public Builder namespace(String namespace) {
            this.namespace = io.latchkey.spi.Namespaces.check(namespace);
            return this;
        }

        /**
         * The longest wait for one reply: positive, at most 10 minutes, whole milliseconds.
         *
         * @param timeout the timeout
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            this.timeout = checkTimeout(timeout, "timeout");
            return this;
        }

        /**
         * The time allowed to find a usable server: positive, at most 10 minutes.
         *
         * @param connectTimeout the connect timeout
         * @return this builder
         */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = checkTimeout(connectTimeout, "connectTimeout");
            return this;
        }

        /**
         * How grants are written.
         *
         * @param level majority (default) or w1
         * @return this builder
         */
        public Builder writeConcern(WriteConcernLevel level) {
            this.writeConcern = Objects.requireNonNull(level, "writeConcern");
            return this;
        }

        /**
         * How inspect and list read.
         *
         * @param level majority (default), local or linearizable
         * @return this builder
         */
        public Builder readConcern(ReadConcernLevel level) {
            this.readConcern = Objects.requireNonNull(level, "readConcern");
            return this;
        }

        /**
         * How waiters learn of a release.
         *
         * @param mode auto (default: change streams on a replica set or mongos), on, or off (polling)
         * @return this builder
         */
        public Builder changeStreams(ChangeStreamMode mode) {
            this.changeStreams = Objects.requireNonNull(mode, "changeStreams");
            return this;
        }

        /**
         * A PEM file of the CAs to trust instead of the JVM's trust store; turns TLS on. Read and checked when the
         * backend is created.
         *
         * @param caPem the file
         * @return this builder
         */
        public Builder tlsCa(Path caPem) {
            this.tlsCa = PemTls.requirePath(caPem, "tlsCa");
            return this;
        }

        /**
         * A client certificate (PEM, may hold its chain) for servers that ask for one; needs {@link #tlsKey};
         * turns TLS on.
         *
         * @param certificatePem the file
         * @return this builder
         */
        public Builder tlsCert(Path certificatePem) {
            this.tlsCert = PemTls.requirePath(certificatePem, "tlsCert");
            return this;
        }

        /**
         * The unencrypted PKCS#8 PEM key ({@code -----BEGIN PRIVATE KEY-----}) of {@link #tlsCert}.
         *
         * @param keyPem the file
         * @return this builder
         */
        public Builder tlsKey(Path keyPem) {
            this.tlsKey = PemTls.requirePath(keyPem, "tlsKey");
            return this;
        }

        /**
         * The settings.
         *
         * @return the settings
         * @throws IllegalArgumentException when only one of tlsCert and tlsKey is given
         */
        public MongoSettings build() {
            PemTls.checkSettings(null, tlsCa, tlsCert, tlsKey);
            return new MongoSettings(this);
        }

        private static String name(String text, String what, int max, String forbidden) {
            if (text == null || text.isEmpty() || text.length() > max) {
                throw new IllegalArgumentException(
                        what + " must be 1 to " + max + " characters, was " + (text == null ? null : "'" + text + "'"));
            }
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (forbidden.indexOf(c) >= 0 || Character.isISOControl(c) || Character.isWhitespace(c)) {
                    throw new IllegalArgumentException(String.format(
                            "%s must not contain '%s' (at index %d of '%s'); MongoDB forbids %s, whitespace and control"
                                    + " characters in it",
                            what, c, i, text.replaceAll("\\p{Cntrl}", "?"), forbidden.replace(" ", "")));
                }
            }
            return text;
        }

        private static Duration checkTimeout(Duration d, String what) {
            if (d == null || d.isZero() || d.isNegative() || d.compareTo(MAX_TIMEOUT) > 0 || d.toMillis() == 0) {
                throw new IllegalArgumentException(
                        what + " must be a duration from 1ms to 10m, was " + (d == null ? null : DurationText.format(d)));
            }
            return d;
        }
    }
}
