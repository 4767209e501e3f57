package io.latchkey.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Finds TCP ports on 127.0.0.1 that are free right now, for servers a test is about to start.
 *
 * <p>Design: the kernel picks the port (bind to port 0), which avoids guessing. Several ports asked for at
 * once are held open together so they are distinct. The port is free only until someone else binds it, so
 * a small in-JVM memory of recently handed-out ports keeps two fixtures in the same JVM from being given
 * the same port between its release here and the server's bind. The memory is guarded by a lock that is
 * never held during I/O.
 */
public final class FreePorts {

    /** Largest number of ports one call may ask for; more is almost certainly a bug in the caller. */
    public static final int MAX_PORTS_PER_CALL = 64;

    private static final int RECENT_PORTS_REMEMBERED = 1024;
    private static final int MAX_ATTEMPTS_PER_PORT = 50;

    private static final ReentrantLock RECENT_LOCK = new ReentrantLock();
    private static final Map<Integer, Boolean> RECENTLY_GIVEN = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Boolean> eldest) {
            return size() > RECENT_PORTS_REMEMBERED;
        }
    };

    private FreePorts() {}

    /**
     * Returns one free TCP port on 127.0.0.1.
     *
     * @return a port number between 1 and 65535
     * @throws UncheckedIOException if no socket can be bound on loopback
     */
    public static int find() {
        return find(1).get(0);
    }

    /**
     * Returns {@code count} distinct free TCP ports on 127.0.0.1.
     *
     * @param count how many ports, 1 to {@value #MAX_PORTS_PER_CALL}
     * @return the ports, distinct, in no particular order
     * @throws IllegalArgumentException if {@code count} is out of range
     * @throws UncheckedIOException if no socket can be bound on loopback
     */
    public static List<Integer> find(int count) {
        if (count < 1 || count > MAX_PORTS_PER_CALL) {
            throw new IllegalArgumentException("count must be between 1 and " + MAX_PORTS_PER_CALL + ", was " + count);
        }
        List<ServerSocket> held = new ArrayList<>(count);
        List<Integer> ports = new ArrayList<>(count);
        try {
            int attempts = 0;
            while (ports.size() < count) {
                if (++attempts > count * MAX_ATTEMPTS_PER_PORT) {
                    throw new IllegalStateException("could not find " + count + " free loopback ports after "
                            + (attempts - 1) + " attempts; found only " + ports);
                }
                ServerSocket socket = bindEphemeral();
                held.add(socket); // keep it bound so the next bind gets a different port
                int port = socket.getLocalPort();
                if (rememberIfNew(port)) {
                    ports.add(port);
                }
            }
            return List.copyOf(ports);
        } catch (IOException e) {
            throw new UncheckedIOException("could not bind a socket on 127.0.0.1 to find a free port", e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing a listening socket that never accepted cannot lose data
                }
            }
        }
    }

    private static ServerSocket bindEphemeral() throws IOException {
        ServerSocket socket = new ServerSocket();
        try {
            // SO_REUSEADDR so the server that gets this port can bind it although we just closed it
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(loopback(), 0));
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    private static boolean rememberIfNew(int port) {
        RECENT_LOCK.lock();
        try {
            return RECENTLY_GIVEN.putIfAbsent(port, Boolean.TRUE) == null;
        } finally {
            RECENT_LOCK.unlock();
        }
    }

    /** 127.0.0.1 explicitly: {@code getLoopbackAddress()} may answer ::1, which servers told "127.0.0.1" do not bind. */
    static InetAddress loopback() throws IOException {
        return InetAddress.getByAddress("127.0.0.1", new byte[] {127, 0, 0, 1});
    }
}
