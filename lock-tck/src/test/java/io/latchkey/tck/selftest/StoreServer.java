package io.latchkey.tck.selftest;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Fairness;
import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.DaemonThreads;
import io.latchkey.spi.Grant;
import io.latchkey.spi.RenewResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/*
 * Serves a FlawedStore on loopback, so that a child JVM (the TCK's SIGKILL rules) shares the store with the test:
 * the child connects with the URI flawed-tcp://127.0.0.1:<port> through RemoteStoreBackend.
 *
 * The protocol is one request line, one reply line; fields are URL-encoded and separated by single spaces:
 *   ACQ name owner lease fairness            -> GRANT token | BUSY holder|- holderToken retryAfterNanos|-
 *   RENEW name owner token lease            -> RENEWED | NOTHELD reason|-
 *   REL name owner token                    -> true | false
 *   FORCE name                              -> true | false
 *   INSPECT name                            -> INFOS [name owner token acquiredMs|- expiresMs|-]
 *   LIST prefix                             -> INFOS [name owner token acquiredMs|- expiresMs|-]...
 * and DOWN while the store is in an outage. A lease is nanoseconds, or with the flaw EXPIRY_FROM_CLIENT_WALL_CLOCK
 * "@" and the client's wall-clock expiry in epoch millis. Times the client needs (validity) it counts itself from before it
 * sent the request, so no clock crosses the wire.
 *
 * Concurrency: one daemon thread accepts, one per connection answers; the store does its own locking.
 */
final class StoreServer implements AutoCloseable {
    static final String SCHEME = "flawed-tcp";

    private final FlawedStore store;
    private final ServerSocket listener;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();

    StoreServer(FlawedStore store) {
        this.store = store;
        try {
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException("could not listen on loopback for the self-test store", e);
        }
        DaemonThreads.start("selftest-store-accept", this::acceptAll);
    }

    /** The URI a child JVM connects with. */
    int port() {
        return listener.getLocalPort();
    }

    String uri() {
        return SCHEME + "://127.0.0.1:" + listener.getLocalPort();
    }

    private void acceptAll() {
        while (!listener.isClosed()) {
            try {
                Socket s = listener.accept();
                connections.add(s);
                DaemonThreads.start("selftest-store-conn", () -> serve(s));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        FlawedBackend client = store.newBackend(); // its loss sink stays unbound: a remote holder learns by renewing
        try (socket;
                BufferedReader in =
                        new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                Writer out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                String reply;
                try {
                    reply = answer(client, line.split(" ", -1));
                } catch (BackendUnavailableException e) {
                    reply = "DOWN";
                }
                out.write(reply + "\n");
                out.flush();
            }
        } catch (IOException e) {
            // the client went away (or was killed)
        } finally {
            connections.remove(socket);
        }
    }

    private String answer(FlawedBackend client, String[] f) {
        switch (f[0]) {
            case "ACQ": {
                AcquireResult r = store.tryAcquire(
                        new AcquireRequest(
                                dec(f[1]), dec(f[2]), lease(f[3]), Fairness.valueOf(f[4])),
                        client);
                if (r instanceof Grant g) {
                    return "GRANT " + g.fencingToken();
                }
                Busy b = (Busy) r;
                return "BUSY " + orDash(b.holder() == null ? null : enc(b.holder())) + " " + b.holderToken() + " "
                        + orDash(
                                b.retryAfter() == null
                                        ? null
                                        : Long.toString(b.retryAfter().toNanos()));
            }
            case "RENEW": {
                RenewResult r = store.renew(grant(f), lease(f[4]));
                return r.held()
                        ? "RENEWED"
                        : "NOTHELD "
                                + orDash(r.reason() == null ? null : r.reason().name());
            }
            case "REL":
                return Boolean.toString(store.release(grant(f)));
            case "FORCE":
                return Boolean.toString(store.forceRelease(dec(f[1])));
            case "INSPECT":
                return infos(store.inspect(dec(f[1])).stream());
            case "LIST":
                return infos(store.list(dec(f[1])).stream());
            default:
                return "ERR unknown request " + f[0];
        }
    }

    /**
     * A lease as nanoseconds, or (flaw EXPIRY_FROM_CLIENT_WALL_CLOCK) as {@code @} and an expiry in epoch millis on the
     * client's wall clock, which this store turns into a lease with its own wall clock.
     */
    private static Duration lease(String field) {
        if (field.startsWith("@")) {
            return Duration.ofMillis(Math.max(1, Long.parseLong(field.substring(1)) - System.currentTimeMillis()));
        }
        return Duration.ofNanos(Long.parseLong(field));
    }

    private static Grant grant(String[] f) {
        return new Grant(dec(f[1]), dec(f[2]), Long.parseLong(f[3]), 0, null);
    }

    private static String infos(java.util.stream.Stream<LockInfo> infos) {
        return "INFOS"
                + infos.map(i -> " " + enc(i.name()) + " " + enc(i.owner()) + " " + i.fencingToken() + " "
                                + millis(i.acquiredAt()) + " " + millis(i.expiresAt()))
                        .collect(Collectors.joining());
    }

    private static String millis(Optional<Instant> at) {
        return at.map(i -> Long.toString(i.toEpochMilli())).orElse("-");
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static String dec(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    static String orDash(String s) {
        return s == null ? "-" : s;
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException e) {
            // nothing more to do
        }
        for (Socket s : connections) {
            try {
                s.close();
            } catch (IOException e) {
                // same
            }
        }
    }
}
