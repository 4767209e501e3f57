package io.latchkey.zookeeper;

import io.latchkey.spi.StoreErrors;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.X509Exception;

/*
 * TLS to ZooKeeper's secure client port. ZooKeeper's client does TLS only on its Netty socket, configured per client
 * through a ZKClientConfig (never the JVM-wide zookeeper.* system properties, which would reach every ZooKeeper client
 * in the process): the secure flag, the Netty socket, and the trust store (a PEM file of CAs, ZooKeeper's own "PEM"
 * trust store type; else the JVM's default trust store). Host names are verified (ZooKeeper's default).
 *
 * A handshake that fails inside ZooKeeper's client shows only as a session that never comes up, logged once a second
 * by its reconnect loop. So before starting the client, the backend makes one TLS handshake of its own with the same
 * trust store to the first server that accepted a TCP connection: a certificate that does not verify then fails the
 * connect at once with one line that names the server and the TLS problem.
 *
 * Stateless.
 */
final class ZooKeeperTls {
    private ZooKeeperTls() {}

    /** The client configuration of a TLS connection with these settings. */
    static ZKClientConfig clientConfig(ZooKeeperSettings settings) {
        ZKClientConfig c = new ZKClientConfig();
        c.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        c.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
        try (ClientX509Util x509 = new ClientX509Util()) {
            settings.tlsCa().ifPresent(ca -> {
                c.setProperty(x509.getSslTruststoreLocationProperty(), ca.toString());
                c.setProperty(x509.getSslTruststoreTypeProperty(), "PEM");
            });
            c.setProperty(x509.getSslHostnameVerificationEnabledProperty(), "true");
        }
        return c;
    }

    /**
     * One TLS handshake to {@code server} (the one that accepted the TCP probe) as the client will make it (same
     * trust, host name checked).
     *
     * @return null if it succeeded, else the problem in one line, naming the server
     */
    static String handshakeProblem(InetSocketAddress address, ZKClientConfig config, Duration timeout) {
        String host = address.getHostString();
        int port = address.getPort();
        String server = host + ":" + port;
        SSLContext context;
        try (ClientX509Util x509 = new ClientX509Util()) {
            context = x509.createSSLContext(config);
        } catch (X509Exception.SSLContextException e) {
            return "cannot set up TLS for " + server + ": " + deepest(e);
        }
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            SSLParameters p = socket.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host we dialled
            socket.setSSLParameters(p);
            socket.startHandshake();
            return null;
        } catch (SSLException e) {
            return "TLS handshake with " + server + " failed: " + what(e) + " (" + deepest(e) + ")";
        } catch (IOException e) {
            return "TLS handshake with " + server + " failed: " + deepest(e)
                    + " (is this the server's secure client port?)";
        }
    }

    /** The TLS problem in the SPI's words, with the setting to check. */
    private static String what(Throwable e) {
        String problem = StoreErrors.tlsProblem(e);
        if (problem == null) {
            return "the handshake failed";
        }
        return problem.equals("the server's certificate is not trusted")
                ? problem + " (no CA in tlsCa, or in the JVM's trust store without it, signed it)"
                : problem;
    }

    private static String deepest(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String msg = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return msg.replaceAll("\\s+", " ").trim();
    }
}
