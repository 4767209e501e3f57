package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.mem.MemoryStore;
import io.latchkey.mem.VirtualClock;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.RenewResult;
import io.latchkey.testing.ForwardingBackend;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The core bounds every grant's validity itself (docs/design.md §4.3), whatever the backend reports. */
class ValidityClampTest {
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final Duration DRIFT = Duration.ofMillis(102); // 1 % of the lease + 2 ms

    private final VirtualClock clock = new VirtualClock();
    private final MemoryStore store = new MemoryStore(clock);

    /** A backend that claims an hour more validity than the store gave, on every grant and renewal. */
    private LockClient overstating() {
        long hour = Duration.ofHours(1).toNanos();
        return Latchkey.client(new ForwardingBackend(store.newBackend()) {
            @Override
            public AcquireResult tryAcquire(AcquireRequest r) {
                AcquireResult result = super.tryAcquire(r);
                return result instanceof Grant g
                        ? new Grant(g.name(), g.owner(), g.fencingToken(), g.validUntilNanos() + hour, g.state())
                        : result;
            }

            @Override
            public RenewResult renew(Grant g, Duration lease) {
                RenewResult r = super.renew(g, lease);
                return r.held() ? RenewResult.renewed(r.validUntilNanos() + hour) : r;
            }
        });
    }

    @Test
    @DisplayName("a grant whose backend overstates its validity is valid for the lease minus drift, no longer")
    void overstatedGrantIsClampedToLeaseMinusDrift() {
        try (LockClient client = overstating()) {
            LockHandle h = client.lock("job", LockOptions.builder().lease(LEASE).autoRenew(false).build())
                    .tryAcquire()
                    .orElseThrow();
            assertThat(h.remaining()).isEqualTo(LEASE.minus(DRIFT));
            clock.advance(LEASE.minus(DRIFT));
            assertThat(h.isValid()).as("valid past request start + lease - drift").isFalse();
        }
    }

    @Test
    @DisplayName("an overstated renewal is clamped to the renewal's start plus the lease minus drift")
    void overstatedRenewalIsClamped() {
        try (LockClient client = overstating()) {
            LockHandle h = client.lock("job", LockOptions.builder().lease(LEASE).autoRenew(false).build())
                    .tryAcquire()
                    .orElseThrow();
            clock.advance(Duration.ofSeconds(4));
            assertThat(h.renew()).isTrue();
            assertThat(h.remaining()).isEqualTo(LEASE.minus(DRIFT));
        }
    }

    @Test
    @DisplayName("an honest backend's shorter validity is kept")
    void shorterValidityIsKept() {
        try (LockClient client = Latchkey.client(new ForwardingBackend(store.newBackend()) {
            @Override
            public AcquireResult tryAcquire(AcquireRequest r) {
                AcquireResult result = super.tryAcquire(r);
                return result instanceof Grant g
                        ? new Grant(g.name(), g.owner(), g.fencingToken(), g.validUntilNanos() - 5_000_000_000L, null)
                        : result;
            }
        })) {
            LockHandle h = client.lock("job", LockOptions.builder().lease(LEASE).autoRenew(false).build())
                    .tryAcquire()
                    .orElseThrow();
            assertThat(h.remaining()).isEqualTo(Duration.ofSeconds(5));
        }
    }
}
