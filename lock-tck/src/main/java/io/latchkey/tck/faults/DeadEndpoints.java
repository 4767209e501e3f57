package io.latchkey.tck.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/*
 * Loopback endpoints that are not a store. A closed port refuses at once; a silent port completes the TCP
 * handshake (its acceptor thread takes every connection) and then neither reads, writes nor closes, which is
 * what a hung server, a stopped process behind a live socket or a misrouted firewall looks like. Each silent
 * port has one daemon acceptor thread; close() closes the listener and every accepted socket.
 */
/**
 * Loopback endpoints that are not a store: a closed port, and silent ports that accept connections and never
 * answer.
 */
public final class DeadEndpoints {
    private DeadEndpoints() {}

    /**
     * A loopback port that nothing listens on (bound once to find it, then closed).
     *
     * @return the port
     */
    public static int closedPort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("could not find a free loopback port", e);
        }
    }

    /**
     * Opens {@code count} silent ports.
     *
     * @param count how many
     * @return the ports; close them when done
     */
    public static SilentPorts silentPorts(int count) {
        return new SilentPorts(count);
    }

    /** Ports that accept connections and never answer, until closed. */
    public static final class SilentPorts implements AutoCloseable {
        private final List<ServerSocket> listeners = new ArrayList<>();
        private final List<Socket> accepted = new CopyOnWriteArrayList<>();

        private SilentPorts(int count) {
            try {
                for (int i = 0; i < count; i++) {
                    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                    listeners.add(s);
                    Thread t = new Thread(() -> acceptForever(s), "silent-port-" + s.getLocalPort());
                    t.setDaemon(true);
                    t.start();
                }
            } catch (IOException e) {
                close();
                throw new UncheckedIOException("could not open a silent loopback port", e);
            }
        }

        private void acceptForever(ServerSocket s) {
            while (!s.isClosed()) {
                try {
                    accepted.add(s.accept()); // held open, never read, never written
                } catch (IOException closed) {
                    return;
                }
            }
        }

        /**
         * The i-th port.
         *
         * @param i the index, from 0
         * @return the port
         */
        public int port(int i) {
            return listeners.get(i).getLocalPort();
        }

        /**
         * The first port.
         *
         * @return the port
         */
        public int port() {
            return port(0);
        }

        /**
         * {@code 127.0.0.1:port} of the i-th port.
         *
         * @param i the index, from 0
         * @return {@code 127.0.0.1:port}
         */
        public String hostPort(int i) {
            return "127.0.0.1:" + port(i);
        }

        @Override
        public void close() {
            for (ServerSocket s : listeners) {
                closeQuietly(s);
            }
            for (Socket s : accepted) {
                closeQuietly(s);
            }
        }

        private static void closeQuietly(AutoCloseable c) {
            try {
                c.close();
            } catch (Exception ignored) {
                // closing a test endpoint: nothing to do about it
            }
        }
    }
}
