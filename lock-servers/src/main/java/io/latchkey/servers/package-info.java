/**
 * Real servers on free loopback ports, for tests, the CLI's embedded mode ({@code latchkey bench}) and the
 * benchmarks. {@link io.latchkey.servers.ServerProcess} launches and supervises one server binary (readiness,
 * log capture, pause/resume/kill/restart for fault injection, guaranteed clean-up); the recipes
 * {@link io.latchkey.servers.PostgresServer}, {@link io.latchkey.servers.MariaDbServer},
 * {@link io.latchkey.servers.RedisServer} and {@link io.latchkey.servers.EtcdServer} say how each store is started.
 * {@link io.latchkey.servers.ServerFixture} chooses where a server comes from (an endpoint named by an
 * environment variable, a binary on {@code PATH}, Testcontainers when Docker is reachable, an embedded server)
 * and hands "none available" to an {@link io.latchkey.servers.UnavailablePolicy}.
 *
 * <p>Depends on SLF4J, the SPI's {@code BackendUri} and {@code Redaction} (an endpoint from the environment may
 * carry a password) and, optionally, Testcontainers; never on the core, never on JUnit (the TCK's
 * {@code io.latchkey.tck.server} turns "no server" into a skipped test).
 */
package io.latchkey.servers;
