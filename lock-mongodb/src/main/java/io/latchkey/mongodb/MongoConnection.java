package io.latchkey.mongodb;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoSecurityException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.ReadConcern;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.BackendUri;
import io.latchkey.spi.Deadlines;
import io.latchkey.spi.PemTls;
import io.latchkey.spi.Reachability;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.Settings;
import io.latchkey.spi.StoreErrors;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

/*
 * The client's lifecycle: a URI and settings become one MongoClient (its own pool, monitoring threads and
 * reconnects), checked with a ping within connectTimeout, closed with the backend.
 *
 * The URI is MongoDB's own connection string (mongodb:// or mongodb+srv://, hosts, /database, the driver's options
 * such as replicaSet or authSource), read through the SPI's BackendUri so that credentials may also come as the
 * settings user and password and every message is redacted; the Latchkey keys (MongoSettings.KEYS) are taken out
 * and the rest goes to the driver. The connection string handed to the driver carries the credentials and is never
 * shown. Stateless apart from the client.
 */
final class MongoConnection implements AutoCloseable {
    /** The connect check; afterwards the driver's monitor knows the deployment's type. */
    private static final Document PING = new Document("ping", 1);

    private final MongoClient client;
    private final MongoCollection<Document> locks;
    private final String description;
    private final String target;
    /** The URI and settings as given, for Redaction.scrub; never shown. */
    private final String uri;

    private final Map<String, String> given;
    private final MongoSettings settings;
    private final boolean owned;
    /** Whether waiters use a change stream: the changeStreams setting, and for auto what hello said. */
    private boolean changeStreams; // set once before the connection is handed out

    private MongoConnection(
            MongoClient client,
            MongoSettings settings,
            String description,
            String target,
            String uri,
            Map<String, String> given,
            boolean owned) {
        this.client = client;
        this.owned = owned;
        this.settings = settings;
        this.description = description;
        this.target = target;
        this.uri = uri;
        this.given = given;
        this.locks = client.getDatabase(settings.database())
                .getCollection(settings.collection())
                .withWriteConcern(
                        settings.writeConcern() == MongoSettings.WriteConcernLevel.MAJORITY
                                ? WriteConcern.MAJORITY
                                : WriteConcern.W1)
                .withReadConcern(
                        switch (settings.readConcern()) {
                            case MAJORITY -> ReadConcern.MAJORITY;
                            case LOCAL -> ReadConcern.LOCAL;
                            case LINEARIZABLE -> ReadConcern.LINEARIZABLE;
                        });
    }

    /** Connects and checks the server; {@code check} false skips the ping (the CLI's offline commands). */
    static MongoConnection open(URI uri, Map<String, String> given, boolean check) {
        BackendUri b = BackendUri.parse(uri, MongoSettings.BACKEND, given, 27017);
        if (!b.scheme().equals("mongodb") && !b.scheme().equals("mongodb+srv")) {
            throw new IllegalArgumentException(
                    "unsupported scheme in '" + b + "'; expected mongodb://host[:port][,host...] or mongodb+srv://host");
        }
        if (b.password().isPresent() && b.user().isEmpty()) {
            throw new IllegalArgumentException("'" + b + "' gives a password without a user name; MongoDB needs both:"
                    + " mongodb://user:password@host, or the settings user and password");
        }
        Settings all = b.settings();
        refuseUnreadTlsFiles(all.asMap().keySet());
        Settings latchkey = Settings.of(MongoSettings.BACKEND, only(all.asMap(), true));
        MongoSettings s = MongoSettings.read(latchkey, b.path().isEmpty() ? null : b.path());
        ConnectionString cs;
        try {
            cs = new ConnectionString(driverString(b, uri, only(all.asMap(), false)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + b + "' is not a MongoDB connection string the driver accepts: "
                    + Redaction.scrub(String.valueOf(e.getMessage()), uri.toString(), given));
        }
        int connectMillis = Math.toIntExact(s.connectTimeout().toMillis());
        MongoClientSettings.Builder cb = MongoClientSettings.builder()
                .applyConnectionString(cs)
                .applyToSocketSettings(ss -> ss.connectTimeout(connectMillis, TimeUnit.MILLISECONDS)
                        .readTimeout(Math.toIntExact(s.timeout().toMillis()), TimeUnit.MILLISECONDS))
                .applyToClusterSettings(cl -> cl.serverSelectionTimeout(connectMillis, TimeUnit.MILLISECONDS));
        if (cs.getApplicationName() == null) {
            cb.applicationName("latchkey");
        }
        SSLContext tls = tlsContext(b, cs, s);
        if (tls != null) {
            cb.applyToSslSettings(ssl -> ssl.enabled(true).context(tls));
        }
        if (check && tls != null && !b.scheme().equals("mongodb+srv") && !Boolean.TRUE.equals(cs.getSslInvalidHostnameAllowed())) {
            checkHandshake(b, s, tls);
        }
        MongoConnection c = new MongoConnection(
                MongoClients.create(cb.build()), s, b.toString(), b.target(), uri.toString(), Map.copyOf(given), true);
        if (check) {
            try {
                c.client.getDatabase(s.database()).runCommand(PING);
                c.changeStreams = c.useChangeStreams();
            } catch (RuntimeException e) {
                c.close();
                throw c.connectFailure(e);
            }
        }
        return c;
    }

    /**
     * The TLS context of a client that speaks TLS (the driver's tls=true, mongodb+srv://, or a PEM setting): the PEM
     * files' own, else the JVM's default; null for plain text.
     */
    private static @Nullable SSLContext tlsContext(BackendUri b, ConnectionString cs, MongoSettings s) {
        Boolean driverTls = cs.getSslEnabled();
        PemTls.checkSettings(driverTls, s.tlsCa().orElse(null), s.tlsCert().orElse(null), s.tlsKey().orElse(null));
        if (s.anyTlsFile()) {
            return PemTls.context(s.tlsCa().orElse(null), s.tlsCert().orElse(null), s.tlsKey().orElse(null));
        }
        boolean on = driverTls != null ? driverTls : b.scheme().equals("mongodb+srv");
        if (!on) {
            return null;
        }
        try {
            return SSLContext.getDefault();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no default TLS context", e);
        }
    }

    /**
     * One TLS handshake with the first server that accepts a connection, before the driver starts: the driver
     * reports a certificate that does not verify only as a server it could not select, after connectTimeout.
     */
    private static void checkHandshake(BackendUri b, MongoSettings s, SSLContext context) {
        long deadline = Deadlines.after(System.nanoTime(), s.connectTimeout());
        Reachability.Result reach = Reachability.probe(
                b.hosts().stream().map(Object::toString).collect(java.util.stream.Collectors.joining(",")), deadline);
        java.net.InetSocketAddress accepted = reach.accepted();
        if (accepted == null) {
            return; // nobody answers: the ping reports it as the driver sees it
        }
        String problem = PemTls.handshakeProblem(
                accepted, context, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        if (problem != null) {
            throw StoreErrors.cannotReach(b.target(), s.connectTimeout(), problem, null, null);
        }
    }

    /**
     * The changeStreams setting applied to the deployment's type as the driver's monitor saw it (after a ping): a
     * replica set, a sharded cluster (mongos) and a load-balanced deployment have change streams; a standalone
     * mongod has none. No extra round trip.
     */
    private boolean useChangeStreams() {
        return switch (settings.changeStreams()) {
            case ON -> true;
            case OFF -> false;
            case AUTO -> switch (client.getClusterDescription().getType()) {
                case REPLICA_SET, SHARDED, LOAD_BALANCED -> true;
                default -> false;
            };
        };
    }

    /**
     * On the application's client, which the backend never closes; its connection string, credentials, timeouts and
     * concerns are the application's (the settings' write and read concerns apply to the lock collection).
     */
    static MongoConnection ofClient(MongoClient client, MongoSettings s, String description) {
        MongoConnection c = new MongoConnection(client, s, description, description, description, Map.of(), false);
        if (s.changeStreams() == MongoSettings.ChangeStreamMode.AUTO) {
            try {
                client.getDatabase(s.database()).runCommand(PING);
                c.changeStreams = c.useChangeStreams();
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(MongoConnection.class)
                        .warn(
                                "Could not ask {} whether it has change streams ({}); waiters poll. Set changeStreams"
                                        + " to on or off to skip the question.",
                                description,
                                StoreErrors.oneLine(c.scrub(reason(e))));
            }
        } else {
            c.changeStreams = c.useChangeStreams();
        }
        return c;
    }

    /**
     * Options other drivers read and the Java driver only warns about: TLS would then run on the JVM's trust store,
     * or fail, without the file the user meant.
     */
    private static void refuseUnreadTlsFiles(java.util.Set<String> keys) {
        for (String k : keys) {
            String lower = k.toLowerCase(java.util.Locale.ROOT);
            if (lower.equals("tlscafile") || lower.equals("sslcafile")) {
                throw new IllegalArgumentException("MongoDB's Java driver does not read " + k
                        + "; give the CA file as Latchkey's tlsCa setting (PEM), e.g. ?tlsCa=/etc/ssl/mongo-ca.pem");
            }
            if (lower.startsWith("tlscertificatekeyfile") || lower.equals("sslpemkeyfile")) {
                throw new IllegalArgumentException("MongoDB's Java driver does not read " + k
                        + "; give the client certificate and its unencrypted PKCS#8 key as Latchkey's tlsCert and"
                        + " tlsKey settings (PEM files)");
            }
        }
    }

    /** The Latchkey keys of a merged settings map ({@code latchkey}), or every other key (the driver's). */
    private static Map<String, String> only(Map<String, String> all, boolean latchkey) {
        Map<String, String> picked = new java.util.LinkedHashMap<>();
        all.forEach((k, v) -> {
            if (MongoSettings.KEYS.contains(k) == latchkey) {
                picked.put(k, v);
            }
        });
        return picked;
    }

    /** The connection string for the driver: scheme, credentials, hosts, no path, the driver's options. */
    private static String driverString(BackendUri b, URI original, Map<String, String> driverOptions) {
        StringBuilder sb = new StringBuilder(b.scheme()).append("://");
        if (b.user().isPresent()) {
            sb.append(encode(b.user().get()));
            b.password().ifPresent(pw -> sb.append(':').append(encode(pw)));
            sb.append('@');
        }
        if (b.scheme().equals("mongodb+srv")) {
            sb.append(original.getHost()); // one DNS name, no port: the SRV record gives the hosts
        } else {
            for (int i = 0; i < b.hosts().size(); i++) {
                sb.append(i == 0 ? "" : ",").append(b.hosts().get(i));
            }
        }
        sb.append('/');
        String sep = "?";
        for (Map.Entry<String, String> option : driverOptions.entrySet()) {
            sb.append(sep).append(encode(option.getKey())).append('=').append(encode(option.getValue()));
            sep = "&";
        }
        return sb.toString();
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** A failure of the connect check, as one line that names the store and never a secret. */
    private BackendUnavailableException connectFailure(RuntimeException e) {
        if (isAuthentication(e)) {
            return StoreErrors.authenticationFailed(target, scrub(reason(e)), null, null);
        }
        if (e instanceof MongoTimeoutException) {
            return StoreErrors.cannotReach(
                    target, settings.connectTimeout(), "no usable server answered (" + scrub(reason(e)) + ")", null, null);
        }
        return StoreErrors.cannotReach(target, settings.connectTimeout(), scrub(reason(e)), null, null);
    }

    /** An operation's failure, naming the operation, the lock and the store. */
    BackendUnavailableException unavailable(String operation, String lockName, RuntimeException e) {
        String why = isAuthentication(e) ? "authentication failed: " + scrub(reason(e)) : scrub(reason(e));
        return new BackendUnavailableException(
                "MongoDB " + operation + " failed on " + description + ": " + StoreErrors.oneLine(why),
                lockName,
                description,
                null);
    }

    private static boolean isAuthentication(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MongoSecurityException
                    || (t instanceof MongoCommandException c && (c.getErrorCode() == 18 || c.getErrorCode() == 13))) {
                return true;
            }
        }
        return false;
    }

    private static String reason(Throwable e) {
        Throwable deepest = e;
        while (deepest.getCause() != null && deepest.getCause() != deepest) {
            deepest = deepest.getCause();
        }
        String top = e instanceof MongoException m && m.getCode() != -1 ? "code " + m.getCode() + ": " : "";
        String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (deepest != e && deepest.getMessage() != null && !msg.contains(deepest.getMessage())) {
            msg = msg + " (" + deepest.getMessage() + ")";
        }
        return top + msg;
    }

    private String scrub(String text) {
        return Redaction.scrub(text, uri, given);
    }

    MongoCollection<Document> locks() {
        return locks;
    }

    MongoSettings settings() {
        return settings;
    }

    /** Whether waiters should use a change stream on this connection. */
    boolean changeStreams() {
        return changeStreams;
    }

    String description() {
        return description;
    }

    @Override
    public void close() {
        if (owned) {
            client.close();
        }
    }
}
