package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A missing JDBC driver is reported with the Maven coordinates to add. The provider is loaded in a class
 * loader that hides the driver (and loads lock-jdbc and HikariCP itself, so DriverManager hides it too).
 */
class MissingDriverTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "jdbc:postgresql://127.0.0.1:5432/app?password=S3cret|org.postgresql.|no JDBC driver for jdbc:postgresql://127.0.0.1:5432/app?password=*** on the class path: add the dependency org.postgresql:postgresql",
                "jdbc:mariadb://127.0.0.1:3306/app|org.mariadb.|no JDBC driver for jdbc:mariadb://127.0.0.1:3306/app on the class path: add the dependency org.mariadb.jdbc:mariadb-java-client",
                "jdbc:mysql://127.0.0.1:3306/app|com.mysql.,org.mariadb.|no JDBC driver for jdbc:mysql://127.0.0.1:3306/app on the class path: add the dependency com.mysql:mysql-connector-j (or org.mariadb.jdbc:mariadb-java-client)",
                "jdbc:h2:mem:app|org.h2.|no JDBC driver for jdbc:h2:mem:app on the class path: add the dependency com.h2database:h2"
            })
    void namesTheArtifactToAdd(String url, String hidden, String expected) throws Exception {
        Throwable thrown = createIn(new Hiding(List.of(hidden.split(","))), url);
        assertThat(thrown).isNotNull();
        assertThat(thrown.getClass().getName()).isEqualTo("io.latchkey.LockException");
        assertThat(thrown.getMessage()).isEqualTo(expected);
    }

    @org.junit.jupiter.api.Test
    void mysqlUrlIsServedByTheMariaDbDriverWhenConnectorJIsMissing() throws Exception {
        ClassLoader loader = new Hiding(List.of("com.mysql."));
        Class<?> drivers = Class.forName("io.latchkey.jdbc.Drivers", true, loader);
        var forUrl = drivers.getDeclaredMethod("forUrl", String.class);
        forUrl.setAccessible(true);
        Object d = withContextLoader(loader, () -> forUrl.invoke(null, "jdbc:mysql://127.0.0.1:3306/app?user=u"));
        assertThat(d.toString())
                .contains("org.mariadb.jdbc.Driver")
                .contains("jdbc:mysql://127.0.0.1:3306/app?user=u&permitMysqlScheme");
    }

    @org.junit.jupiter.api.Test
    void mysqlUrlWorksWithOnlyTheMariaDbDriver() throws Exception {
        io.latchkey.servers.RunningServer server = io.latchkey.jdbc.fixtures.MariaDbFixture.start();
        try {
            String url =
                    io.latchkey.jdbc.fixtures.MariaDbFixture.url(server).replaceFirst("^jdbc:mariadb:", "jdbc:mysql:");
            ClassLoader loader = new Hiding(List.of("com.mysql."));
            Object backend;
            try {
                backend = create(loader, url, Map.of());
            } catch (InvocationTargetException e) {
                throw new AssertionError("jdbc:mysql: without MySQL Connector/J failed: " + e.getCause(), e.getCause());
            }
            try (io.latchkey.LockClient client = io.latchkey.Latchkey.client((io.latchkey.spi.LockBackend) backend)) {
                client.lock("via-mariadb-driver").tryAcquire().orElseThrow().close();
            }
        } finally {
            server.close();
        }
    }

    /** Calls JdbcBackendProvider.create inside the loader; returns what it threw (null if nothing). */
    private static Throwable createIn(ClassLoader loader, String url) throws Exception {
        try {
            create(loader, url, Map.of("connectTimeout", "1s"));
            return null;
        } catch (InvocationTargetException e) {
            return e.getCause();
        }
    }

    private static Object create(ClassLoader loader, String url, Map<String, String> settings) throws Exception {
        Class<?> provider = Class.forName("io.latchkey.jdbc.JdbcBackendProvider", true, loader);
        Object p = provider.getDeclaredConstructor().newInstance();
        return withContextLoader(
                loader, () -> provider.getMethod("create", URI.class, Map.class).invoke(p, URI.create(url), settings));
    }

    interface Call {
        Object call() throws Exception;
    }

    private static Object withContextLoader(ClassLoader loader, Call call) throws Exception {
        Thread t = Thread.currentThread();
        ClassLoader before = t.getContextClassLoader();
        t.setContextClassLoader(loader);
        try {
            return call.call();
        } finally {
            t.setContextClassLoader(before);
        }
    }

    /** Child-first for lock-jdbc and HikariCP, refuses the hidden packages, parent-first for the rest. */
    static final class Hiding extends ClassLoader {
        private final List<String> hidden;

        Hiding(List<String> hidden) {
            super(MissingDriverTest.class.getClassLoader());
            this.hidden = hidden;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                for (String h : hidden) {
                    if (name.startsWith(h)) {
                        throw new ClassNotFoundException(name + " (hidden by the test)");
                    }
                }
                Class<?> c = findLoadedClass(name);
                if (c == null && (name.startsWith("io.latchkey.jdbc.") || name.startsWith("com.zaxxer.hikari."))) {
                    c = defineOwn(name);
                }
                if (c == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        private Class<?> defineOwn(String name) throws ClassNotFoundException {
            try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                if (in == null) {
                    return null;
                }
                byte[] b = in.readAllBytes();
                return defineClass(name, b, 0, b.length);
            } catch (IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }

        @Override
        public java.net.URL getResource(String name) {
            for (String h : hidden) {
                if (name.startsWith(h.replace('.', '/')) || name.equals("META-INF/services/java.sql.Driver")) {
                    return null;
                }
            }
            return super.getResource(name);
        }
    }
}
