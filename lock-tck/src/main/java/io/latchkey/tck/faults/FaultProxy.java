package io.latchkey.tck.faults;

import io.latchkey.spi.DaemonThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/*
 * A TCP relay on loopback between a store's clients and one of its endpoints, that can fail the way networks fail:
 * - latency: every chunk waits the given time before it is passed on (each direction, so a round trip gains twice);
 * - lose replies: requests reach the store, the store's answers never come back (the grant was made, the client
 *   never heard), the connection stays open and silent;
 * - black hole: nothing passes either way, connections stay open (a partition, a dead switch: no RST);
 * - freeze: nothing passes either way and nothing is dropped: chunks wait in the relay (and the kernel's buffers) and
 *   go on, in order, when it heals (a partition that heals, a stalled machine), so a framed protocol stays intact;
 * - cut: every connection is closed and new ones are closed at once (the endpoint is unreachable).
 * heal() passes again; after lost replies or a black hole it also closes every connection, whose byte stream a
 * dropped chunk has broken, and clients reconnect as they would after a real fault.
 *
 * Concurrency: one daemon thread accepts; each connection has two pump threads, one per direction, that read a
 * chunk, look at the volatile mode and forward, delay, hold or drop it. A held chunk waits on the `thawed` latch that
 * freeze() installs and heal() opens. Connections live in a concurrent set so that
 * heal() and cut() can close them from the test's thread; a pump that finds its socket closed ends.
 */
/**
 * A TCP relay between a store's clients and one endpoint that can add latency, lose replies, black-hole, freeze or
 * cut.
 */
public final class FaultProxy implements AutoCloseable {
    /** What the relay does to the bytes it carries. */
    public enum Mode {
        /** Passes everything. */
        PASS,
        /** Delays every chunk by the latency. */
        LATENCY,
        /** Passes requests, drops the store's replies. */
        LOSE_REPLIES,
        /** Drops everything, keeps connections open. */
        BLACK_HOLE,
        /** Holds everything until healed, keeps connections open, drops nothing. */
        FROZEN,
        /** Closes every connection, refuses new ones. */
        CUT
    }

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile Mode mode = Mode.PASS;
    private volatile long latencyNanos;
    private volatile CountDownLatch thawed = new CountDownLatch(0);

    private FaultProxy(InetSocketAddress target) {
        this.target = target;
        try {
            this.listener = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException("could not listen on loopback for a fault proxy to " + target, e);
        }
        DaemonThreads.start("fault-proxy-accept-" + listener.getLocalPort(), this::acceptAll);
    }

    /**
     * A relay to {@code host:port}, passing everything until told otherwise.
     *
     * @param host the endpoint's host
     * @param port the endpoint's port
     * @return the running relay
     */
    public static FaultProxy to(String host, int port) {
        return new FaultProxy(new InetSocketAddress(host, port));
    }

    /**
     * A relay to {@code host:port} given as one string.
     *
     * @param hostPort the endpoint, {@code host:port}
     * @return the running relay
     */
    public static FaultProxy to(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            throw new IllegalArgumentException("an endpoint is host:port, was '" + hostPort + "'");
        }
        return to(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /**
     * Where clients connect instead of the endpoint.
     *
     * @return {@code 127.0.0.1:port}
     */
    public String hostPort() {
        return "127.0.0.1:" + port();
    }

    /**
     * The loopback port clients connect to instead of the endpoint.
     *
     * @return the port
     */
    public int port() {
        return listener.getLocalPort();
    }

    /**
     * The endpoint behind the relay.
     *
     * @return the endpoint
     */
    public InetSocketAddress target() {
        return target;
    }

    /**
     * What the relay does now.
     *
     * @return the mode
     */
    public Mode mode() {
        return mode;
    }

    /**
     * Delays every chunk, each way, by {@code oneWay}.
     *
     * @param oneWay the added delay per direction
     */
    public void latency(Duration oneWay) {
        latencyNanos = oneWay.toNanos();
        mode = Mode.LATENCY;
    }

    /** Passes requests and drops every reply, keeping the connections open. */
    public void loseReplies() {
        mode = Mode.LOSE_REPLIES;
    }

    /** Drops everything both ways, keeping the connections open. */
    public void blackHole() {
        mode = Mode.BLACK_HOLE;
    }

    /** Holds every chunk, both ways, until {@link #heal()}; drops nothing and keeps the connections open. */
    public void freeze() {
        thawed = new CountDownLatch(1);
        mode = Mode.FROZEN;
    }

    /** Closes every connection and every new one. */
    public void cut() {
        mode = Mode.CUT;
        closeConnections();
    }

    /** Passes everything again; connections open during a fault are closed, and clients reconnect. */
    public void heal() {
        Mode was = mode;
        mode = Mode.PASS;
        thawed.countDown(); // held chunks go on, in order
        if (was == Mode.LOSE_REPLIES || was == Mode.BLACK_HOLE) {
            closeConnections(); // their byte streams lost chunks
        }
    }

    @Override
    public void close() {
        thawed.countDown();
        try {
            listener.close();
        } catch (IOException e) {
            // closing anyway
        }
        closeConnections();
    }

    @Override
    public String toString() {
        return "FaultProxy[:" + port() + " -> " + target.getHostString() + ":" + target.getPort() + ", " + mode + "]";
    }

    private void acceptAll() {
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (mode == Mode.CUT) {
                closeQuietly(client);
                continue;
            }
            Socket server = new Socket();
            try {
                server.connect(target, 5_000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(server);
                continue;
            }
            sockets.add(client);
            sockets.add(server);
            if (mode == Mode.CUT) { // cut() came between accept and add: it set the mode before it closed the set
                closeQuietly(client);
                closeQuietly(server);
                sockets.remove(client);
                sockets.remove(server);
                continue;
            }
            DaemonThreads.start("fault-proxy-up-" + port(), () -> pump(client, server, false));
            DaemonThreads.start("fault-proxy-down-" + port(), () -> pump(server, client, true));
        }
    }

    private void pump(Socket from, Socket to, boolean reply) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                Mode now = mode;
                if (now == Mode.FROZEN) {
                    thawed.await();
                    now = mode;
                }
                if (now == Mode.CUT) {
                    break; // a connection cut() could not see yet: closed in finally, never left open and silent
                }
                if (now == Mode.BLACK_HOLE || (now == Mode.LOSE_REPLIES && reply)) {
                    continue; // dropped
                }
                if (now == Mode.LATENCY) {
                    long until = System.nanoTime() + latencyNanos;
                    for (long left; (left = until - System.nanoTime()) > 0; ) {
                        LockSupport.parkNanos(left); // a network's delay: nothing to wait for but time
                    }
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // either side closed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // a daemon pump: ending it is all there is to do
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
        }
    }

    private void closeConnections() {
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing more to do
        }
    }

}
