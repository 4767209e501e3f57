package io.latchkey.spi;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Before a backend starts its store's own client: can any server of a {@code host:port[,host:port...]} list be
 * reached at all (a TCP connect, nothing sent)? Store clients retry a refused connection quietly or noisily
 * until their own timeout (the ZooKeeper client logs a WARN with a stack trace about once a second; a gRPC
 * call reports "1 attempts in PT4.5S" after 9.6 s). With this probe first, a store that refuses or does not
 * exist is reported at once, in one line ({@link StoreErrors#cannotReach}), and the store's client is never
 * started; a server that accepts is left to the store's client, which either completes its handshake or is
 * reported as silent when the connect timeout ends.
 */
public final class Reachability {
    private Reachability() {}

    /**
     * What the probe found: whether some server accepted a TCP connection, which one, and why the others did not.
     *
     * @param anyAccepted whether a server accepted
     * @param reason why none did, or null
     * @param accepted the server that accepted (as given: host and port, unresolved), or null
     */
    public record Result(boolean anyAccepted, @Nullable String reason, @Nullable InetSocketAddress accepted) {}

    /**
     * Tries the servers in order until one accepts, sharing the time left until {@code deadlineNanos}
     * ({@link System#nanoTime()} based) among them.
     *
     * @param connectString {@code host:port} entries separated by commas; an IPv6 host in brackets
     * @param deadlineNanos the {@link System#nanoTime()} by which the probe gives up
     * @return whether a server accepted, and the reasons of those that did not
     */
    public static Result probe(String connectString, long deadlineNanos) {
        String[] servers = connectString.split(",");
        List<String> reasons = new ArrayList<>();
        for (int i = 0; i < servers.length; i++) {
            String hostPort = servers[i];
            long left = deadlineNanos - System.nanoTime();
            int budgetMillis = (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left / (servers.length - i)));
            int colon = hostPort.lastIndexOf(':');
            String host = hostPort.substring(0, colon);
            int port = Integer.parseInt(hostPort.substring(colon + 1));
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), budgetMillis);
                return new Result(true, null, InetSocketAddress.createUnresolved(host, port));
            } catch (UnknownHostException e) {
                reasons.add(hostPort + ": unknown host");
            } catch (ConnectException e) {
                reasons.add(hostPort + ": connection refused");
            } catch (SocketTimeoutException e) {
                reasons.add(hostPort + ": no answer to the TCP connection within " + budgetMillis + "ms");
            } catch (NoRouteToHostException e) {
                reasons.add(hostPort + ": no route to host");
            } catch (IOException | IllegalArgumentException e) {
                reasons.add(hostPort + ": " + e.getMessage());
            }
        }
        String reason =
                servers.length == 1 ? reasons.get(0).substring(servers[0].length() + 2) : String.join("; ", reasons);
        return new Result(false, reason, null);
    }
}
