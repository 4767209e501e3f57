/**
 * The JUnit side of the server fixtures: {@link io.latchkey.tck.server.TckServers} makes a
 * {@link io.latchkey.servers.ServerFixture} skip a test whose server is unavailable, or fail it when
 * {@code LATCHKEY_REQUIRE_SERVERS=true}. The servers themselves (launching, readiness, fault injection) live in
 * lock-servers ({@code io.latchkey.servers}), which does not depend on JUnit.
 *
 * <p>Depends on {@code io.latchkey.servers} and JUnit's opentest4j only; never on the lock API.
 */
package io.latchkey.tck.server;
