/**
 * The JDBC backend: locks in PostgreSQL, MariaDB/MySQL and H2, as lease rows judged by the database's clock
 * ({@link io.latchkey.jdbc.JdbcMode#LEASE}) or as database locks bound to a connection
 * ({@link io.latchkey.jdbc.JdbcMode#SESSION}). {@link io.latchkey.jdbc.JdbcBackendProvider} reads a
 * {@code jdbc:} URI and its settings ({@code JdbcSettings}) into a pooled {@link io.latchkey.jdbc.JdbcLockBackend};
 * the SQL of each mode and dialect lives in the {@code *Statements} classes, PostgreSQL's LISTEN/NOTIFY wake-ups
 * in {@code PgWaiting}. Uses only {@code io.latchkey}, {@code io.latchkey.spi}, JDBC, HikariCP and SLF4J (and
 * pgjdbc's notification API when present); never {@code io.latchkey.core}.
 */
package io.latchkey.jdbc;
