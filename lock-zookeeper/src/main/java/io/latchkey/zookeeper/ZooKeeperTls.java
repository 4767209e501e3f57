package io.latchkey.zookeeper;

import io.latchkey.spi.PemTls;
import io.latchkey.spi.StoreErrors;
import java.net.InetSocketAddress;
import java.time.Duration;
import javax.net.ssl.SSLContext;
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
        SSLContext context;
        try (ClientX509Util x509 = new ClientX509Util()) {
            context = x509.createSSLContext(config);
        } catch (X509Exception.SSLContextException e) {
            return "cannot set up TLS for " + address.getHostString() + ":" + address.getPort() + ": "
                    + StoreErrors.oneLine(String.valueOf(e.getMessage()));
        }
        return PemTls.handshakeProblem(address, context, timeout);
    }
}
