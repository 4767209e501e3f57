package io.latchkey.servers;

/**
 * Fault injection on a server that a fixture owns: freeze it, thaw it, crash it, bring it back.
 *
 * <p>Only servers the fixture started can be controlled; a server named by an environment variable
 * cannot (see {@link RunningServer#canInjectFaults()}). Implementations are safe to call from any thread;
 * operations on one server are serialised.
 */
public interface ServerControl {

    /**
     * Freezes the server (SIGSTOP for a process): connections stay open, nothing is answered, as in a
     * long GC pause or a network partition. Does nothing if it is already paused.
     *
     * @throws IllegalStateException if the server is not running
     */
    void pause();

    /** Thaws a paused server (SIGCONT for a process). Does nothing if it is not paused. */
    void resume();

    /** Crashes the server at once (SIGKILL for a process and all its descendants). Idempotent. */
    void kill();

    /** Shuts the server down gracefully, forcing it if it does not finish in time. Idempotent. */
    void stop();

    /** Stops the server if it runs, then starts it again on the same address and ports, and waits until it is ready. */
    void restart();

    /**
     * Whether the server is running (a paused server is running).
     *
     * @return {@code true} if it is running
     */
    boolean isAlive();
}
