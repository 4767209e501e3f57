package io.latchkey.jdbc;

import io.latchkey.jdbc.fixtures.MariaDbFixture;
import io.latchkey.servers.MariaDbServer;
import io.latchkey.servers.RunningServer;
import io.latchkey.servers.TestCertificates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MariaDB over TLS (Connector/J {@code sslMode=verify-full&serverSslCert=<ca>}), lease mode, core groups, on a
 * server with {@code ssl-ca/ssl-cert/ssl-key} and {@code require_secure_transport=ON}. Also: a {@code jdbc:mysql:}
 * URL verifies fully with MySQL Connector/J (a PKCS#12 trust store) and with the MariaDB driver.
 */
@DisplayName("TCK: MariaDb lease mode over TLS")
class MariaDbTlsTckTest extends JdbcTlsTck {
    /** Protects nothing (a trust store holds only public certificates); Connector/J wants one. */
    private static final String STORE_PASSWORD = "trust-St0re-pw";

    private static final TlsDatabase DB =
            new TlsDatabase(MariaDbFixture::startTls, MariaDbFixture::url, MariaDbFixture::createRole);

    @BeforeAll
    static void startServer() {
        DB.start();
    }

    @AfterAll
    static void stopServer() {
        DB.close();
    }

    @Override
    protected TlsDatabase database() {
        return DB;
    }

    @Override
    protected String grantsQuery() {
        return "SHOW GRANTS";
    }

    @Override
    protected java.util.List<String> expectedGrants() {
        return java.util.List.of("GRANT SELECT, INSERT, UPDATE ON `" + MariaDbServer.DATABASE
                + "`.`latchkey_locks` TO `" + APP_ROLE + "`@`127.0.0.1`");
    }

    @Override
    protected String grantStatement(String privileges, String object, String role) {
        return "GRANT " + privileges + " ON " + MariaDbServer.DATABASE + "." + object + " TO '" + role + "'@'127.0.0.1'";
    }

    @Override
    protected String url(String tls, PasswordForm form) {
        String hostPort = DB.server().endpoint().hostAndPort();
        String db = "/" + MariaDbServer.DATABASE;
        return switch (form) {
            case NONE -> "jdbc:mariadb://" + hostPort + db + "?user=" + user() + "&" + tls;
            case QUERY -> "jdbc:mariadb://" + hostPort + db + "?user=" + user() + "&password=" + PASSWORD + "&" + tls;
            case USER_INFO -> "jdbc:mariadb://" + user() + ":" + PASSWORD + "@" + hostPort + db + "?" + tls;
        };
    }

    @Override
    protected String verifyFull(Path ca) {
        return "sslMode=verify-full&serverSslCert=" + ca;
    }

    @Override
    protected String plaintext() {
        return "sslMode=disable";
    }

    @Override
    protected String plaintextRefusal() {
        // MariaDB 10.11 answers a plaintext login under require_secure_transport with error 1045
        return "Access denied for user '" + user() + "'@'127.0.0.1'";
    }

    @Override
    protected String tlsRequiredQuery() {
        return "SELECT @@require_secure_transport = 1 AND @@have_ssl = 'YES'";
    }

    @Override
    protected String tlsVersionQuery() {
        return "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'Ssl_version'";
    }

    /**
     * {@code jdbc:mysql:} with full verification: MySQL Connector/J ({@code sslMode=VERIFY_IDENTITY}, the CA in a
     * PKCS#12 trust store) and the MariaDB driver ({@code permitMysqlScheme}, as for {@code jdbc:mariadb:}). A lock
     * is taken over it, the session is TLS, and the same URL trusting an unrelated CA fails with the one line.
     */
    @ParameterizedTest(name = "jdbc:mysql with {0}")
    @ValueSource(strings = {"Connector/J", "MariaDB driver"})
    void tlsAMySqlUrlVerifiesFully(String driver) throws Exception {
        try (TestCertificates unrelated = TestCertificates.create()) {
            String good = mysqlUrl(driver, DB.certs().caCertificate());
            String bad = mysqlUrl(driver, unrelated.caCertificate());
            try (LockClient client = Latchkey.connect(good, Map.of());
                    LockHandle h = client.lock("tls-mysql-url").acquire(Duration.ofSeconds(10))) {
                assertThat(h.fencingToken()).isPositive();
            }
            Driver d = driver.equals("Connector/J") ? new com.mysql.cj.jdbc.Driver() : new org.mariadb.jdbc.Driver();
            try (Connection c = d.connect(good, new Properties());
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(tlsVersionQuery())) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).as("TLS version").startsWith("TLSv1.");
            }
            Throwable e = catchThrowable(() -> Latchkey.connect(bad, Map.of()).close());
            System.out.println("jdbc:mysql with " + driver + ", untrusted: " + e.getMessage());
            assertThat(e).isInstanceOf(BackendUnavailableException.class);
            assertThat(e.getMessage())
                    .doesNotContain("\n")
                    .doesNotContain("\r")
                    .doesNotContain(STORE_PASSWORD)
                    .contains(DB.server().endpoint().hostAndPort())
                    .contains("TLS: the server's certificate is not trusted");
        } finally {
            Files.deleteIfExists(trustStore(DB.certs().caCertificate()));
        }
    }

    private static String mysqlUrl(String driver, Path ca) throws Exception {
        String base = "jdbc:mysql://" + DB.server().endpoint().hostAndPort() + "/" + MariaDbServer.DATABASE + "?user=" + APP_ROLE
                + "&password=" + PASSWORD + "&";
        if (driver.equals("Connector/J")) {
            Path store = trustStore(ca);
            writeTrustStore(ca, store);
            return base + "sslMode=VERIFY_IDENTITY&trustCertificateKeyStoreUrl=file:" + store
                    + "&trustCertificateKeyStoreType=PKCS12&trustCertificateKeyStorePassword=" + STORE_PASSWORD;
        }
        return base + "permitMysqlScheme&sslMode=verify-full&serverSslCert=" + ca;
    }

    private static Path trustStore(Path ca) {
        return ca.resolveSibling("ca-trust.p12");
    }

    private static void writeTrustStore(Path ca, Path store) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            ks.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        try (OutputStream out = Files.newOutputStream(store)) {
            ks.store(out, STORE_PASSWORD.toCharArray());
        }
    }
}
