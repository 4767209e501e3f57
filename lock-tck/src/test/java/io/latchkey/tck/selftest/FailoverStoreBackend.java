package io.latchkey.tck.selftest;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/*
 * A client of one FlawedStore served on several endpoints (StoreServers sharing the store), as a client of a
 * ZooKeeper ensemble or an etcd cluster reaches any member: each call goes to the endpoint that answered last, and
 * on BackendUnavailableException to the next, until one answers. A retried acquisition is safe: the store recognises
 * the same owner. With the flaw NO_FAILOVER_BETWEEN_ENDPOINTS every call goes to the first endpoint only, so losing
 * that one node stops the client though the rest of the store answers (the minority-cut rule).
 *
 * Concurrency: the preferred index is a volatile hint; each RemoteStoreBackend keeps its own request/reply order.
 */
/** A multi-endpoint client of the self-test's served store, failing over between endpoints unless flawed. */
final class FailoverStoreBackend implements LockBackend {
    private final List<RemoteStoreBackend> endpoints;
    private final boolean failover;
    private volatile int preferred;

    FailoverStoreBackend(List<RemoteStoreBackend> endpoints, boolean failover) {
        this.endpoints = List.copyOf(endpoints);
        this.failover = failover;
    }

    private <T> T call(Function<RemoteStoreBackend, T> request) {
        if (!failover) {
            return request.apply(endpoints.get(0)); // FLAW NO_FAILOVER_BETWEEN_ENDPOINTS: one node is the store
        }
        int first = preferred;
        BackendUnavailableException last = null;
        for (int i = 0; i < endpoints.size(); i++) {
            int index = (first + i) % endpoints.size();
            try {
                T answer = request.apply(endpoints.get(index));
                preferred = index;
                return answer;
            } catch (BackendUnavailableException e) {
                last = e;
            }
        }
        throw last;
    }

    @Override
    public String description() {
        return StoreServer.SCHEME + "://" + endpoints.size() + " endpoints";
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.LISTING);
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        return call(e -> e.tryAcquire(request));
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        return call(e -> e.renew(grant, lease));
    }

    @Override
    public boolean release(Grant grant) {
        return call(e -> e.release(grant));
    }

    @Override
    public boolean forceRelease(String name) {
        return call(e -> e.forceRelease(name));
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return call(e -> e.inspect(name));
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return call(e -> e.list(prefix));
    }

    @Override
    public void close() {
        endpoints.forEach(RemoteStoreBackend::close);
    }
}
