package io.latchkey.tck.server;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import java.util.ArrayList;
import java.util.List;

/**
 * A server and some clients of it, for the tests of one class (start it in {@code @BeforeAll}, close it in
 * {@code @AfterAll}): the clients are closed before the server, and a client that fails to connect closes what was
 * already opened.
 */
public final class StoreClients implements AutoCloseable {
    private final AutoCloseable server;
    private final List<LockClient> clients;

    private StoreClients(AutoCloseable server, List<LockClient> clients) {
        this.server = server;
        this.clients = clients;
    }

    /**
     * {@code count} clients of {@code uri}, served by {@code server}, which this object then closes.
     *
     * @param server the server, closed after the clients
     * @param uri the store's URI
     * @param count how many clients
     * @return the clients
     */
    public static StoreClients of(AutoCloseable server, String uri, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        List<LockClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                clients.add(Latchkey.connect(uri));
            }
            return new StoreClients(server, List.copyOf(clients));
        } catch (RuntimeException e) {
            new StoreClients(server, clients).close();
            throw e;
        }
    }

    /**
     * The {@code index}-th client (from 0).
     *
     * @param index the client's index, from 0
     * @return the client
     */
    public LockClient client(int index) {
        return clients.get(index);
    }

    @Override
    public void close() {
        clients.forEach(LockClient::close);
        try {
            server.close();
        } catch (Exception e) {
            throw new IllegalStateException("could not stop " + server, e);
        }
    }
}
