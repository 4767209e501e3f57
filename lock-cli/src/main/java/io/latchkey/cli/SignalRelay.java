package io.latchkey.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Catches SIGTERM, SIGINT and SIGHUP for {@code exec} and forwards them to the command.
 *
 * <p>Why signal handlers and not a shutdown hook: a hook runs while the JVM is already exiting, with a
 * fixed status (143, 130) and in parallel with other hooks. With handlers, {@code latchkey} stays alive
 * while the command handles the signal, then releases the lock <em>after</em> the command has stopped (so
 * no second run starts while the first is still cleaning up) and exits with the command's own status.
 * {@code sun.misc.Signal} is the JDK's supported-but-unofficial API for this (module jdk.unsupported).
 *
 * <p>Concurrency: the JVM runs each handler on a new thread. The first signal is recorded in a volatile
 * field and completes {@link #stopped()}; the child is published through a volatile field, and
 * {@link #attach(Process)} re-checks for a signal that arrived before the child existed, so no signal is
 * lost between "lock acquired" and "child started".
 */
final class SignalRelay implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SignalRelay.class);
    private static final String[] SIGNALS = {"TERM", "INT", "HUP"};

    private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();
    private final CompletableFuture<Signal> stopped = new CompletableFuture<>();
    private volatile Process child;

    private SignalRelay() {}

    /** Installs the handlers; a signal the JVM will not let us handle (-Xrs) keeps its default. */
    static SignalRelay install() {
        SignalRelay relay = new SignalRelay();
        for (String name : SIGNALS) {
            Signal signal = new Signal(name);
            try {
                relay.previous.put(signal, Signal.handle(signal, relay::onSignal));
            } catch (IllegalArgumentException e) {
                log.debug("cannot handle SIG{}: {}", name, e.getMessage());
            }
        }
        return relay;
    }

    private void onSignal(Signal signal) {
        stopped.complete(signal);
        Process c = child;
        if (c != null) {
            ChildProcesses.signal(c, signal.getName());
        }
    }

    /** Completes when the first signal is received. */
    CompletableFuture<?> stopped() {
        return stopped;
    }

    /** The first signal received, or null. */
    Signal received() {
        return stopped.getNow(null);
    }

    /** True once a signal has been received. */
    boolean signalled() {
        return stopped.isDone();
    }

    /** The exit status for "ended by the first signal received": 128 + its number. */
    int signalStatus() {
        Signal s = received();
        return ExitCodes.SIGNAL_BASE + (s == null ? 0 : s.getNumber());
    }

    /** From now on signals go to this child; one that already arrived is forwarded at once. */
    void attach(Process process) {
        child = process;
        Signal early = received();
        if (early != null) {
            ChildProcesses.signal(process, early.getName());
        }
    }

    /** Restores the JVM's own handlers. */
    @Override
    public void close() {
        previous.forEach((signal, handler) -> {
            try {
                Signal.handle(signal, handler);
            } catch (IllegalArgumentException e) {
                log.debug("cannot restore SIG{}: {}", signal.getName(), e.getMessage());
            }
        });
    }
}
