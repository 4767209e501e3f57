package io.latchkey.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Wraps a DataSource and records every statement execution and every commit/rollback sent through the
 * connections it hands out: the client side of a round trip. A batch (one pipelined round trip) is recorded once, its
 * SQL prefixed with "[batch] ". (Local calls such as getAutoCommit are not
 * recorded; setAutoCommit is, as "autocommit=…", since some drivers send it.)
 */
final class CountingDataSource implements DataSource {
    private static final Set<String> EXECUTIONS = Set.of(
            "execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch", "executeLargeBatch");

    private final DataSource delegate;
    final List<String> sent = new CopyOnWriteArrayList<>();
    volatile boolean recording;
    /** Whether a LISTEN went through, recorded or not: PostgreSQL lease mode's listener is set up in the background. */
    volatile boolean listened;

    CountingDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    void start() {
        sent.clear();
        recording = true;
    }

    List<String> stop() {
        recording = false;
        return List.copyOf(sent);
    }

    private void record(String what) {
        if (recording) {
            sent.add(what);
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrapConnection(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return wrapConnection(delegate.getConnection(user, password));
    }

    private Connection wrapConnection(Connection real) {
        InvocationHandler h = (proxy, m, args) -> {
            switch (m.getName()) {
                case "commit", "rollback" -> record(m.getName().toUpperCase());
                case "setAutoCommit" -> record("autocommit=" + args[0]);
                default -> {}
            }
            Object r = invoke(real, m, args);
            if (r instanceof Statement s
                    && (m.getName().startsWith("prepare") || m.getName().equals("createStatement"))) {
                String sql = args != null && args.length > 0 && args[0] instanceof String text ? text : null;
                return wrapStatement(s, sql);
            }
            return r;
        };
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, h);
    }

    private Statement wrapStatement(Statement real, String preparedSql) {
        Class<?>[] types = real instanceof java.sql.PreparedStatement
                ? new Class<?>[] {java.sql.PreparedStatement.class}
                : new Class<?>[] {Statement.class};
        InvocationHandler h = (proxy, m, args) -> {
            if (EXECUTIONS.contains(m.getName())) {
                String sql = args != null && args.length > 0 && args[0] instanceof String text ? text : preparedSql;
                String text = sql == null ? "?" : sql.replaceAll("\\s+", " ");
                record(m.getName().endsWith("Batch") ? "[batch] " + text : text);
                if (text.startsWith("LISTEN ")) {
                    listened = true;
                }
            }
            return invoke(real, m, args);
        };
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), types, h);
    }

    private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return delegate.isWrapperFor(iface);
    }
}
