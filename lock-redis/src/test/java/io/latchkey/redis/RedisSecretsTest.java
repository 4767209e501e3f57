package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockException;
import io.latchkey.LockHandle;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.redis.fixtures.RedisTopologyServers;
import io.latchkey.servers.FreePorts;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.TestCertificates;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 12, item 1: a password never shows, whatever form it comes in, on every Redis scheme. A table of
 * scheme x form against real servers (requirepass for the default user, ACL users, one of them with a
 * password full of URI delimiters): with the right password (connect, lock, inspect, list), with a wrong one
 * (authentication failed) and on a closed port (cannot reach). The password (literal and percent-encoded, the
 * right one and the wrong one) appears in no {@code backend()}, no {@code toString()}, no exception message or
 * cause, and in nothing logged while every SLF4J logger is at DEBUG.
 */
@Timeout(120)
class RedisSecretsTest {
    /** requirepass of the default user. */
    private static final String DEFAULT_PW = "s3cretPw-default-Zq81";
    /** Password of the ACL user "app". */
    private static final String APP_PW = "s3cretPw-app-Kx52";
    /** Password of the ACL user "enc": every delimiter of the URI grammar, so it must be percent-encoded. */
    private static final String ENC_PW = "Enc@d:ed/Pw%41+x?y#z-9";

    /** requirepass of the Sentinels (setting sentinelPassword). */
    private static final String SENTINEL_PW = "s3cretPw-sentinel-Vb07";

    private static final String ACL = "~* &* +@all";

    private static TestCertificates certs;
    private static RunningServer plain;
    private static RunningServer tls;
    private static List<RunningServer> quorum;
    private static RedisTopologyServers.SentinelGroup sentinelGroup;
    private static RedisTopologyServers.Cluster cluster;

    @BeforeAll
    static void startServers() {
        certs = TestCertificates.create();
        plain = RedisServers.owned(serverArguments());
        tls = RedisServers.tls(certs, false, serverArguments());
        quorum = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            quorum.add(RedisServers.owned(serverArguments()));
        }
        sentinelGroup = RedisTopologyServers.sentinelGroupWithSentinelPassword(SENTINEL_PW, serverArguments());
        cluster = RedisTopologyServers.cluster(serverArguments());
    }

    private static String[] serverArguments() {
        List<String> args = new ArrayList<>(List.of("--requirepass", DEFAULT_PW));
        for (String[] user : new String[][] {{"app", APP_PW}, {"enc", ENC_PW}}) {
            args.addAll(List.of("--user", user[0], "on", ">" + user[1]));
            args.addAll(List.of(ACL.split(" ")));
        }
        return args.toArray(String[]::new);
    }

    @AfterAll
    static void stopServers() {
        List<AutoCloseable> all = new ArrayList<>();
        all.add(plain);
        all.add(tls);
        if (quorum != null) {
            all.addAll(quorum);
        }
        all.add(sentinelGroup);
        all.add(cluster);
        all.add(certs);
        for (AutoCloseable c : all) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // the others still get closed
            }
        }
    }

    /** How the credentials are written. */
    enum Form {
        USER_AND_PASSWORD,
        COLON_PASSWORD,
        LONE_PASSWORD,
        QUERY_PASSWORD,
        QUERY_USER_AND_PASSWORD,
        PERCENT_ENCODED,
        SETTINGS_MAP
    }

    static Stream<Arguments> table() {
        List<Arguments> rows = new ArrayList<>();
        for (String scheme : List.of("redis", "rediss", "redlock", "redis-sentinel", "redis-cluster")) {
            for (Form form : Form.values()) {
                rows.add(Arguments.of(scheme, form));
            }
        }
        return rows.stream();
    }

    /** A URI and settings for the scheme, form and password, against the given hosts. */
    private record Target(String uri, Map<String, String> settings) {}

    private static Target target(String scheme, Form form, String password, String hosts) {
        String user = switch (form) {
            case USER_AND_PASSWORD, QUERY_USER_AND_PASSWORD -> "app";
            case PERCENT_ENCODED -> "enc";
            default -> null;
        };
        Map<String, String> settings = new HashMap<>();
        if (scheme.equals("rediss")) {
            settings.put("tlsCa", certs.caCertificate().toString());
        }
        String query = "";
        if (scheme.equals("redis-sentinel")) {
            // the Sentinels' own password, in the query for the query forms and in the map for the others
            if (form == Form.QUERY_PASSWORD || form == Form.QUERY_USER_AND_PASSWORD) {
                query = "&sentinelPassword=" + URLEncoder.encode(SENTINEL_PW, StandardCharsets.UTF_8);
            } else {
                settings.put("sentinelPassword", SENTINEL_PW);
            }
        }
        settings.put("connectTimeout", "10s"); // generous: a wrong password must show as such, not as a timeout
        settings.put("timeout", "2s"); // cold connections on a loaded machine; this test is about secrets, not speed
        String encoded = URLEncoder.encode(password, StandardCharsets.UTF_8);
        String uri = switch (form) {
            case USER_AND_PASSWORD -> scheme + "://" + user + ":" + password + "@" + hosts;
            case COLON_PASSWORD -> scheme + "://:" + password + "@" + hosts;
            case LONE_PASSWORD -> scheme + "://" + password + "@" + hosts;
            case QUERY_PASSWORD -> scheme + "://" + hosts + "?password=" + encoded + query;
            case QUERY_USER_AND_PASSWORD -> scheme + "://" + hosts + "?user=" + user + "&password=" + encoded + query;
            case PERCENT_ENCODED -> scheme + "://" + user + ":" + encoded + "@" + hosts;
            case SETTINGS_MAP -> {
                settings.put("password", password);
                yield scheme + "://" + hosts;
            }
        };
        return new Target(uri, settings);
    }

    private static String rightPassword(Form form) {
        return switch (form) {
            case USER_AND_PASSWORD, QUERY_USER_AND_PASSWORD -> APP_PW;
            case PERCENT_ENCODED -> ENC_PW;
            default -> DEFAULT_PW;
        };
    }

    private static String hosts(String scheme) {
        return switch (scheme) {
            case "redis" -> plain.endpoint().hostAndPort();
            case "rediss" -> tls.endpoint().hostAndPort();
            case "redis-sentinel" ->
                String.join(
                                ",",
                                sentinelGroup.sentinels().stream()
                                        .map(s -> s.endpoint().hostAndPort())
                                        .toList())
                        + "/" + RedisTopologyServers.MASTER_NAME;
            case "redis-cluster" ->
                String.join(
                        ",",
                        cluster.nodes().stream().map(s -> s.endpoint().hostAndPort()).toList());
            default ->
                String.join(
                        ",",
                        quorum.stream().map(s -> s.endpoint().hostAndPort()).toList());
        };
    }

    private static String closedHosts(String scheme) {
        int n = scheme.equals("redis") || scheme.equals("rediss") ? 1 : 3;
        return String.join(
                        ",", FreePorts.find(n).stream().map(p -> "127.0.0.1:" + p).toList())
                + (scheme.equals("redis-sentinel") ? "/" + RedisTopologyServers.MASTER_NAME : "");
    }

    /** Every form the password may take in text: literal and percent-encoded (both encodings of a space). */
    private static List<String> forms(String password) {
        return List.of(
                password,
                URLEncoder.encode(password, StandardCharsets.UTF_8),
                URLEncoder.encode(password, StandardCharsets.UTF_8).replace("+", "%20"));
    }

    @ParameterizedTest(name = "{0}:// with {1}")
    @MethodSource("table")
    void thePasswordAppearsNowhere(String scheme, Form form) {
        String right = rightPassword(form);
        String wrong = "Wr0ng-" + form.name().toLowerCase().replace('_', '-') + "-Pw";
        List<String> secrets = new ArrayList<>(forms(right));
        secrets.addAll(forms(wrong));
        secrets.addAll(forms(SENTINEL_PW));
        try (CapturedLogs logs = CapturedLogs.atDebug()) {
            org.slf4j.LoggerFactory.getLogger(RedisSecretsTest.class).debug("capture check: DEBUG lines are captured");
            Target good = target(scheme, form, right, hosts(scheme));
            try (LockClient client = Latchkey.connect(good.uri(), good.settings())) {
                assertNoSecret(secrets, client.backend(), client.toString());
                try (LockHandle h = client.lock("secrets/" + form).tryAcquire().orElseThrow()) {
                    assertNoSecret(
                            secrets,
                            h.toString(),
                            String.valueOf(client.inspect(h.name())),
                            String.valueOf(client.list("secrets/")),
                            String.valueOf(client.held()));
                }
            }

            Target bad = target(scheme, form, wrong, hosts(scheme));
            assertThatThrownBy(() -> Latchkey.connect(bad.uri(), bad.settings()).close())
                    .isInstanceOf(BackendUnavailableException.class)
                    .satisfies(e -> assertThat(e.getMessage()).startsWith("authentication failed at " + scheme + "://"))
                    .satisfies(e -> assertNoSecretIn(secrets, e));

            Target nowhere = target(scheme, form, right, closedHosts(scheme));
            assertThatThrownBy(() ->
                            Latchkey.connect(nowhere.uri(), nowhere.settings()).close())
                    .isInstanceOf(BackendUnavailableException.class)
                    .satisfies(e -> assertThat(e.getMessage()).startsWith("cannot reach " + scheme + "://"))
                    .satisfies(e -> assertNoSecretIn(secrets, e));

            if (scheme.equals("redis-sentinel")) {
                // the master's password right, the Sentinels' wrong: no Sentinel names the master
                Target wrongSentinel = target(scheme, form, right, hosts(scheme));
                Map<String, String> settings = new HashMap<>(wrongSentinel.settings());
                String uri = wrongSentinel.uri().replace(
                        "sentinelPassword=" + URLEncoder.encode(SENTINEL_PW, StandardCharsets.UTF_8),
                        "sentinelPassword=" + wrong);
                settings.computeIfPresent("sentinelPassword", (k, v) -> wrong);
                assertThatThrownBy(() -> Latchkey.connect(uri, settings).close())
                        .isInstanceOf(BackendUnavailableException.class)
                        .satisfies(e -> assertThat(e.getMessage())
                                .startsWith("authentication failed at " + scheme + "://")
                                .contains("refused the Sentinel credentials"))
                        .satisfies(e -> assertNoSecretIn(secrets, e));
            }

            String logged = logs.text();
            assertThat(logged)
                    .as("DEBUG output was captured")
                    .contains("DEBUG " + RedisSecretsTest.class.getName() + " - capture check");
            assertNoSecret(secrets, logged);
        }
    }

    private static void assertNoSecretIn(List<String> secrets, Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            assertNoSecret(secrets, String.valueOf(t.getMessage()), t.toString());
            if (t instanceof LockException le) {
                assertNoSecret(secrets, String.valueOf(le.backend()), String.valueOf(le.lockName()));
            }
            for (Throwable s : t.getSuppressed()) {
                assertNoSecret(secrets, String.valueOf(s.getMessage()));
            }
        }
    }

    private static void assertNoSecret(List<String> secrets, String... texts) {
        for (String text : texts) {
            for (String secret : secrets) {
                assertThat(text).as("no password in it").doesNotContain(secret);
            }
        }
    }
}
