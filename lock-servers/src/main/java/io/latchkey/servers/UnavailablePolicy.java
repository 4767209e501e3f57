package io.latchkey.servers;

import java.util.function.Function;

/**
 * What a fixture does when it cannot give what was asked: no server at all, or a server that fault injection
 * cannot control (one somebody else runs, named by an environment variable). The default, {@link #THROW},
 * throws: right for the CLI's embedded mode and the benchmarks. The TCK ({@code io.latchkey.tck.server}) uses
 * a policy that skips the JUnit test, or fails it when servers are required, so that lock-servers itself
 * never depends on JUnit.
 */
public interface UnavailablePolicy {

    /** Throws the {@link ServerUnavailableException} and an {@link IllegalStateException}, as they are. */
    UnavailablePolicy THROW = new UnavailablePolicy() {
        @Override
        public RuntimeException noServer(ServerUnavailableException unavailable, Function<String, String> env) {
            return unavailable;
        }

        @Override
        public RuntimeException noFaultInjection(String message) {
            return new IllegalStateException(message);
        }
    };

    /**
     * The exception {@link ServerFixture#acquire()} throws when no option works; may also throw an
     * {@link Error} itself (a test failure).
     *
     * @param unavailable every reason, in order
     * @param environment the fixture's environment lookup, e.g. for a "servers are required" switch
     * @return the exception to throw
     */
    RuntimeException noServer(ServerUnavailableException unavailable, Function<String, String> environment);

    /**
     * The exception {@link RunningServer#requireFaultInjection()} throws for a server it cannot control.
     *
     * @param message why, naming the server
     * @return the exception to throw
     */
    RuntimeException noFaultInjection(String message);
}
