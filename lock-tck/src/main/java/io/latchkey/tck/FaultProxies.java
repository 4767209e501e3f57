package io.latchkey.tck;

import io.latchkey.tck.faults.FaultProxy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fault proxies of one test: a backend's TCK routes each store endpoint of a proxied client through
 * {@link #route(String, int)} (see {@link LockBackendTck#newBackendThrough(FaultProxies)}), and the network fault
 * rules then fail all of them at once. One proxy per endpoint, created on first use, closed when
 * the test ends. Not thread-safe: a backend's factory runs on the test's thread.
 */
public final class FaultProxies implements AutoCloseable {
    private final Map<String, FaultProxy> byEndpoint = new LinkedHashMap<>();

    FaultProxies() {}

    /**
     * The loopback port that reaches {@code host:port} through this test's proxy for it.
     *
     * @param host the store endpoint's host
     * @param port the store endpoint's port
     * @return the port to connect to instead, on 127.0.0.1
     */
    public int route(String host, int port) {
        return byEndpoint
                .computeIfAbsent(host + ":" + port, k -> FaultProxy.to(host, port))
                .port();
    }

    /**
     * {@code host:port} through this test's proxy for it: {@link #route(String, int)} for an endpoint given as one
     * string, as a multi-endpoint URI lists them.
     *
     * @param hostPort the store endpoint, {@code host:port}
     * @return {@code 127.0.0.1:port} to connect to instead
     */
    public String route(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            throw new IllegalArgumentException("an endpoint to route is host:port, was '" + hostPort + "'");
        }
        return "127.0.0.1:" + route(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /**
     * Every proxy, in the order the endpoints were routed.
     *
     * @return the proxies
     */
    public List<FaultProxy> all() {
        return List.copyOf(byEndpoint.values());
    }

    void loseReplies() {
        all().forEach(FaultProxy::loseReplies);
    }

    void blackHole() {
        all().forEach(FaultProxy::blackHole);
    }

    void latency(java.time.Duration oneWay) {
        all().forEach(p -> p.latency(oneWay));
    }

    void heal() {
        all().forEach(FaultProxy::heal);
    }

    @Override
    public void close() {
        new ArrayList<>(byEndpoint.values()).forEach(FaultProxy::close);
        byEndpoint.clear();
    }

    @Override
    public String toString() {
        return "FaultProxies" + byEndpoint.values();
    }
}
