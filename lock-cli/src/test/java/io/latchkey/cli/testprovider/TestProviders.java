package io.latchkey.cli.testprovider;

import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.mem.MemoryStore;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantLossSink;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.TimeSource;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * "A user's own provider" for {@code latchkey verify --classpath}: not in the shaded jar, found only
 * through the class path given on the command line. {@code testmem:NAME} is a correct store (the in-memory
 * reference store under another scheme); {@code blindmem:NAME} is a flawed one whose {@code inspect} never
 * sees a held lock, which the TCK's inspection rule must catch. Stateless; thread-safety is the store's.
 */
public final class TestProviders {
    private TestProviders() {}

    /** {@code testmem:NAME}: a correct backend. */
    public static final class Correct implements LockBackendProvider {
        @Override
        public Set<String> schemes() {
            return Set.of("testmem");
        }

        @Override
        public LockBackend create(URI uri, Map<String, String> settings) {
            return MemoryStore.named("testmem-" + uri.getSchemeSpecificPart()).newBackend();
        }
    }

    /** {@code blindmem:NAME}: inspect() is broken. */
    public static final class Blind implements LockBackendProvider {
        @Override
        public Set<String> schemes() {
            return Set.of("blindmem");
        }

        @Override
        public LockBackend create(URI uri, Map<String, String> settings) {
            return new BlindInspect(
                    MemoryStore.named("blindmem-" + uri.getSchemeSpecificPart()).newBackend());
        }
    }

    /** Delegates everything but {@link #inspect}, which never finds a lock. */
    static final class BlindInspect implements LockBackend {
        private final LockBackend d;

        BlindInspect(LockBackend delegate) {
            this.d = delegate;
        }

        @Override
        public String description() {
            return "blindmem (" + d.description() + ")";
        }

        @Override
        public Set<Capability> capabilities() {
            return d.capabilities();
        }

        @Override
        public TimeSource timeSource() {
            return d.timeSource();
        }

        @Override
        public void bind(GrantLossSink sink) {
            d.bind(sink);
        }

        @Override
        public AcquireResult tryAcquire(AcquireRequest request) {
            return d.tryAcquire(request);
        }

        @Override
        public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
            return d.acquire(request, maxWait);
        }

        @Override
        public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
            return d.awaitChange(name, timeout);
        }

        @Override
        public RenewResult renew(Grant grant, Duration lease) {
            return d.renew(grant, lease);
        }

        @Override
        public boolean release(Grant grant) {
            return d.release(grant);
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return Optional.empty();
        }

        @Override
        public List<LockInfo> list(String prefix) {
            return d.list(prefix);
        }

        @Override
        public boolean forceRelease(String name) {
            return d.forceRelease(name);
        }

        @Override
        public void close() {
            d.close();
        }
    }
}
