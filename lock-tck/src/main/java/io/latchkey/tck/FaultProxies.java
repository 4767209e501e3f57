package io.latchkey.tck;

import io.latchkey.tck.faults.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fault proxies of one test: a backend's TCK routes each store endpoint of a proxied client through
 * {@link #route(String, int)} (see {@link LockBackendTck#newBackendThrough(FaultProxies)}), and the network fault
 * rules then fail all of them, or a minority, at once. One proxy per endpoint, created on first use, closed when
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
     * Every proxy, in the order the endpoints were routed.
     *
     * @return the proxies
     */
    public List<FaultProxy> all() {
        return List.copyOf(byEndpoint.values());
    }

    /**
     * The first fewer-than-half of the proxies (1 of 3, 2 of 5): a minority of a quorum store's nodes.
     *
     * @return the minority
     */
    public List<FaultProxy> minority() {
        List<FaultProxy> all = all();
        return all.subList(0, (all.size() - 1) / 2);
    }

    /**
     * The first more-than-half of the proxies (2 of 3, 3 of 5).
     *
     * @return the majority
     */
    public List<FaultProxy> majority() {
        List<FaultProxy> all = all();
        return all.subList(0, all.size() / 2 + 1);
    }

    void latency(Duration oneWay) {
        all().forEach(p -> p.latency(oneWay));
    }

    void loseReplies() {
        all().forEach(FaultProxy::loseReplies);
    }

    void blackHole() {
        all().forEach(FaultProxy::blackHole);
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
