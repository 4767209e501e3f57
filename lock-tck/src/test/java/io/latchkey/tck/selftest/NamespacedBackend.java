package io.latchkey.tck.selftest;

import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.ForwardingLockBackend;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantLossSink;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A namespace on a self-test store, the way a backend maps one onto its keys: every name is stored as
 * {@code namespace + separator + name} and shown without it. Correct with a separator no namespace can contain (NUL);
 * with {@code concatenated} (the flaw NAMESPACE_CONCATENATED) namespace and name are simply joined, so namespace
 * {@code "n"} with name {@code "nx"} is the same key as namespace {@code "nn"} with name {@code "x"}.
 */
final class NamespacedBackend extends ForwardingLockBackend {
    private final String keyPrefix;

    NamespacedBackend(LockBackend store, String namespace, boolean concatenated) {
        super(store);
        this.keyPrefix = concatenated ? namespace : namespace + '\u0000';
    }

    private String key(String name) {
        return keyPrefix + name;
    }

    private String name(String key) {
        return key.substring(keyPrefix.length());
    }

    private AcquireRequest toStore(AcquireRequest r) {
        return new AcquireRequest(key(r.name()), r.owner(), r.lease(), r.fairness(), r.kind());
    }

    private Grant toStore(Grant g) {
        return new Grant(key(g.name()), g.owner(), g.fencingToken(), g.validUntilNanos(), g.state(), g.kind());
    }

    private AcquireResult fromStore(AcquireResult r) {
        return r instanceof Grant g
                ? new Grant(name(g.name()), g.owner(), g.fencingToken(), g.validUntilNanos(), g.state(), g.kind())
                : r;
    }

    @Override
    public void bind(GrantLossSink sink) {
        super.bind(new GrantLossSink() {
            @Override
            public void grantLost(
                    String name, String owner, LockLoss.Reason reason, String detail, @Nullable Throwable cause) {
                if (name.startsWith(keyPrefix)) {
                    sink.grantLost(name(name), owner, reason, detail, cause);
                }
            }

            @Override
            public void allLost(LockLoss.Reason reason, String detail, @Nullable Throwable cause) {
                sink.allLost(reason, detail, cause);
            }
        });
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        return fromStore(super.tryAcquire(toStore(request)));
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        return fromStore(super.acquire(toStore(request), maxWait));
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        return super.awaitChange(key(name), timeout);
    }

    @Override
    public boolean awaitChange(AcquireRequest request, Duration timeout) throws InterruptedException {
        return super.awaitChange(toStore(request), timeout);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        return super.renew(toStore(grant), lease);
    }

    @Override
    public boolean release(Grant grant) {
        return super.release(toStore(grant));
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return super.inspect(key(name)).map(this::fromStore);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        List<LockInfo> out = new ArrayList<>();
        for (LockInfo i : super.list(key(prefix))) {
            out.add(fromStore(i));
        }
        return out;
    }

    @Override
    public boolean forceRelease(String name) {
        return super.forceRelease(key(name));
    }

    private LockInfo fromStore(LockInfo i) {
        return new LockInfo(name(i.name()), i.owner(), i.fencingToken(), i.acquiredAt(), i.expiresAt());
    }
}
