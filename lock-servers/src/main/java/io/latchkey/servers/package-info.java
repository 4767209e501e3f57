/**
 * Fixtures that give tests and benchmarks a real server on loopback.
 *
 * <p>{@link io.latchkey.servers.ServerProcess} launches and supervises one server binary (readiness,
 * log capture, pause/resume/kill/restart for fault injection, guaranteed clean-up).
 * {@link io.latchkey.servers.ServerFixture} chooses where a server comes from, in the order of
 * DESIGN.md section 7: an endpoint named by an environment variable, a binary on {@code PATH},
 * Testcontainers when a Docker engine is reachable, an embedded server; otherwise the test is skipped with
 * a message listing why each option was unavailable, or fails when {@code LATCHKEY_REQUIRE_SERVERS=true}.
 *
 * <p>Nothing here depends on the lock API: backends build their own fixtures from these pieces.
 */
package io.latchkey.servers;
