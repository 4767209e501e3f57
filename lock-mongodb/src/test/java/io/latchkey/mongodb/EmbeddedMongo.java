package io.latchkey.mongodb;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.latchkey.servers.TestCertificates;
import io.latchkey.tck.faults.FaultProxy;
import java.net.InetSocketAddress;

/**
 * mongo-java-server, an in-process implementation of MongoDB's wire protocol (not a mongod: see the module README),
 * on a loopback port, behind a TCK fault proxy that every client of the tests goes through, so that an outage is a
 * cut of the proxy (connections closed, new ones refused) and the in-memory data survives it.
 */
final class EmbeddedMongo implements AutoCloseable {
    private final MongoServer server;
    private final InetSocketAddress address;
    private final FaultProxy front;

    EmbeddedMongo() {
        this(false);
    }

    /**
     * @param oplog whether the server keeps an oplog, which its change streams read; it still presents itself as a
     *     standalone server, so a backend uses change streams only with {@code changeStreams=on}
     */
    EmbeddedMongo(boolean oplog) {
        this(oplog, null);
    }

    /**
     * A server that speaks TLS only, with the test CA's server certificate (it names 127.0.0.1 and localhost).
     *
     * @param tls the certificates
     */
    EmbeddedMongo(TestCertificates tls) {
        this(false, tls);
    }

    private EmbeddedMongo(boolean oplog, TestCertificates tls) {
        MemoryBackend backend = new MemoryBackend();
        if (oplog) {
            backend.enableOplog();
        }
        server = new MongoServer(backend);
        if (tls != null) {
            server.enableSsl(tls.serverPrivateKey(), null, tls.serverCertificateChain());
        }
        address = server.bind(); // a free port on loopback
        front = FaultProxy.to("127.0.0.1", address.getPort());
    }

    /** The server's own address, {@code 127.0.0.1:port}. */
    String hostPort() {
        return "127.0.0.1:" + address.getPort();
    }

    /** The URI of a client that goes through the outage proxy. */
    String uri() {
        return "mongodb://127.0.0.1:" + front.port() + "/latchkey";
    }

    /** As {@link #uri()}, with waiters woken by a change stream (the emulator does not say it has them). */
    String watchingUri() {
        return uri() + "?changeStreams=on";
    }

    /** The URI of a client that reaches the server directly (child JVMs, fault proxies of the network rules). */
    String directUri() {
        return "mongodb://" + hostPort() + "/latchkey";
    }

    /** Stops the store for the clients of {@link #uri()} until the handle is closed. */
    AutoCloseable outage() {
        front.cut();
        return front::heal;
    }

    @Override
    public void close() {
        front.close();
        server.shutdownNow();
    }
}
