/**
 * Endpoints that fail the way production stores fail, for tests of how a backend reports them: a closed port
 * (connection refused), a silent port (accepts, never answers), and a separate JVM that connects as a user's
 * application would, at a command-line user's log levels, so that a test can see everything that reaches
 * stderr. Loopback only. Depends on lock-api (the public API) and the JDK, nothing else.
 */
package io.latchkey.tck.faults;
